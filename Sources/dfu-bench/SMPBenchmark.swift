import ArgumentParser
import BlueZ
import DFUSimulator
import Foundation
import MCUmgr
import SimulatorProcess

/// `dfu-bench smp`: an MCUboot image uploaded over SMP through bluetoothd to `dfu-sim --simulate
/// smp-app`, by our `SMPUpdater` and by smpmgr in the same run, next to the SMP bound of the link
/// (docs/benchmarks.md, "SMP through bluetoothd").
struct SMPBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "smp",
        abstract: "SMP image upload through bluetoothd: our engine and smpmgr, against the link's SMP bound.",
        discussion: """
            Measures the link as `dfu-bench link` does (dfu-sim --simulate secure --trace, at the \
            start and at the end; the bound takes their mean). Then serves `dfu-sim --simulate \
            smp-app --trace` on --peripheral-adapter and updates it from --adapter (smpmgr's \
            adapter is pinned to hci0 by its launcher) twice with SMPUpdater: a small image (untimed: under TCG first runs of code pay for its translation; it also leaves \
            the old image in slot 1, so that the measured upload waits for the slot's erase as on a \
            device updated before), then the --size image. A fresh dfu-sim with the same options \
            gets the same two images from smpmgr (--smpmgr: `smpmgr --ble ADDRESS upgrade \
            --confirm FILE`). Both uploads are timed by dfu-sim's trace: from the arrival of the \
            first upload chunk to the moment the last answer is due. Last, a resumed update: \
            dfu-sim drops the link once half the image is in (--sim-fault disconnect-at), and the \
            bytes sent twice are set against the window (buf_count − 2 chunks, at least 1). Defaults: nRF \
            Connect SDK's fast-DFU buffers (2475 bytes × 4, reassembly on); Zephyr's defaults are \
            --buf-size 384 --no-reassembly. The flash: the nRF52's 85 ms page erase, no word \
            write time (--word-write-us 0), since the bound counts none (at 41 µs a word the \
            flash would take 3.1 s of a 300 KiB upload whatever the client). Needs two BlueZ \
            adapters that see each other and root: in practice the VM, scripts/vm/bench-smp.sh.
            """)

    @OptionGroup var adapters: BenchAdapterOptions

    @Option(help: "smpmgr's launcher: takes smpmgr's arguments (scripts/vm/smpmgr-client.sh).")
    var smpmgr: String

    @Option(help: "The measured image's size in bytes.")
    var size = 300 * 1024

    @Option(help: "The device's SMP buffer size (dfu-sim --sim-smp-buf-size).")
    var bufSize = 2475

    @Option(help: "The device's SMP buffers (dfu-sim --sim-smp-buf-count).")
    var bufCount = 4

    @Flag(inversion: .prefixedNo, help: "The device reassembles frames from writes (--sim-smp-reassembly).")
    var reassembly = true

    @Option(help: "The device's page erase in ms (dfu-sim --sim-page-erase-ms).")
    var pageEraseMs = 85

    @Option(help: "The device's word write in µs (dfu-sim --sim-word-write-us).")
    var wordWriteUs = 0

    @Option(help: "Round trips measured by the link probe (the median counts).")
    var roundTrips = 31

    @Option(help: "A directory to keep each smp-app dfu-sim's events in (ours, smpmgr, resumed .jsonl).")
    var eventsDirectory: String?

    @Flag(help: "JSON Lines instead of text.")
    var json = false

    /// The untimed first image's size: a few windows of the largest chunks.
    static let warmUpBytes = 12 * 1024

    func validate() throws {
        guard size > Self.warmUpBytes, bufSize >= 64, bufCount >= 2, pageEraseMs >= 0, wordWriteUs >= 0 else {
            throw ValidationError(
                "--size must exceed \(Self.warmUpBytes), --buf-size 64 or more, --buf-count 2 or more")
        }
    }

    func run() async throws {
        if let eventsDirectory {
            try FileManager.default.createDirectory(
                atPath: eventsDirectory, withIntermediateDirectories: true)
        }
        let report = LinkReport(json: json)
        let linkAtStart = try await probeLink()
        report.link(linkAtStart, measured: "start")
        let warmUp = try Self.image(size: Self.warmUpBytes, version: "1.1.0")
        let image = try Self.image(size: size, version: "2.0.0")

        let ours = try await serving("ours", holding: image) { _, address in
            _ = try await Self.update(warmUp, address: address, adapter: adapters.adapter)
            return try await Self.update(image, address: address, adapter: adapters.adapter)
        }
        let theirs = try await serving("smpmgr", holding: image) { simulator, address in
            var wallTime = Duration.zero
            for each in [warmUp, image] {
                let advertised = simulator.advertisements.count
                wallTime = try await Self.smpmgrUpgrade(each, address: address, launcher: smpmgr)
                // the device resets after the upgrade (MCUboot's swap: about 85 ms per 4 KiB page of
                // both images): the next step waits until it is back
                try await simulator.waitForAdvertising(count: advertised + 1, timeout: .seconds(60))
            }
            return wallTime
        }
        let resumed = try await serving("resumed", holding: image, fault: "disconnect-at=\(size / 2)") {
            _, address in
            try await Self.update(image, address: address, adapter: adapters.adapter)
        }
        let linkAtEnd = try await probeLink()
        report.link(linkAtEnd, measured: "end")
        let link = LinkFigures.mean(linkAtStart, linkAtEnd)
        report.link(link, measured: "mean")

        let frameLimit = reassembly ? bufSize : min(bufSize, ours.trace.longestWrite)
        let start = ImageUploadChunk.Start(length: UInt32(size), sha256: image.fileSHA256)
        var timing = SimulationTiming()
        timing.pageErase = .milliseconds(pageEraseMs)
        let window = max(1, bufCount - 2)  // the engine's (SMPImageUpload.windowCapacity)
        let bound = SMPUploadBound(
            frameBytes: SMPUploadBound.frames(length: size, frameLimit: frameLimit, start: start),
            window: window, roundTrip: link.receiptRoundTrip, roundTripBytes: link.packetBytes,
            bytesPerSecond: link.rawBytesPerSecond,
            erase: timing.eraseTime(bytes: min(size + timing.pageSize, SMPDeviceConfiguration().slotSize)))
        let windowBytes =
            window
            * ImageUploadChunk.maximumDataCount(
                frameLimit: frameLimit, offset: UInt32(size / 2), start: nil)
        report.smp(
            SMPReportFigures(
                imageBytes: size, bufSize: bufSize, bufCount: bufCount, reassembly: reassembly,
                frameLimit: frameLimit, bound: bound, ours: ours.trace, engine: ours.value,
                smpmgr: theirs.trace, smpmgrWallTime: theirs.value, resumed: resumed.value,
                windowBytes: windowBytes))
    }

    /// The link's figures from a fresh `dfu-sim --simulate secure` (LinkProbe), tracing its writes
    /// as the measured devices do (the trace costs the VM's CPU on every write).
    private func probeLink() async throws -> LinkFigures {
        try await serve(["--simulate", "secure", "--trace"]).serving { address in
            try await LinkProbe.measure(
                central: try await BlueZCentral(adapter: adapters.adapter), address: address,
                roundTrips: roundTrips, longRun: 600, repeats: 4)
        } afterStop: { address in
            await (try? BlueZCentral(adapter: adapters.adapter))?.forget(address)
        }.value
    }

    /// Serves a fresh `smp-app` device (with `fault`, if any), runs `body` with it and its
    /// address, stops it and checks that it runs `image`; returns `body`'s value and the upload
    /// `dfu-sim`'s trace shows. Keeps its events as `step`.jsonl in --events-directory.
    private func serving<T>(
        _ step: String, holding image: MCUbootImage, fault: String? = nil,
        _ body: (DFUSimProcess, String) async throws -> T
    ) async throws -> (value: T, trace: SMPUploadTrace) {
        var arguments = [
            "--simulate", "smp-app", "--trace", "--sim-smp-buf-size", "\(bufSize)", "--sim-smp-buf-count",
            "\(bufCount)", "--sim-page-erase-ms", "\(pageEraseMs)", "--sim-word-write-us", "\(wordWriteUs)",
        ]
        if reassembly { arguments.append("--sim-smp-reassembly") }
        if let fault { arguments += ["--sim-fault", fault] }
        let simulator = try serve(arguments)
        let (value, held) = try await simulator.serving { address in
            try await body(simulator, address)
        } afterStop: { address in
            await (try? BlueZCentral(adapter: adapters.adapter))?.forget(address)
        }
        if let eventsDirectory {
            let lines = try simulator.events.map {
                String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self)
            }
            try (lines.joined(separator: "\n") + "\n").write(
                toFile: "\(eventsDirectory)/\(step).jsonl", atomically: true, encoding: .utf8)
        }
        try Self.check(held, runs: image)
        guard let trace = SMPUploadTrace(events: simulator.events) else {
            throw ValidationError("dfu-sim's trace shows no upload")
        }
        return (value, trace)
    }

    private func serve(_ arguments: [String]) throws -> DFUSimProcess {
        try DFUSimProcess(
            executable: adapters.dfuSimExecutable,
            arguments: ["--adapter", adapters.peripheralAdapter] + arguments)
    }
}
