import ArgumentParser
import BlueZ
import Crypto
import DFUSimulator
import DFUSupport
import Foundation
import GATT
import NordicDFU
import SimulatorProcess

/// `dfu-bench link`: Secure DFU through bluetoothd against `dfu-sim`, next to the protocol bound
/// of the same link measured in the same run (docs/benchmarks.md, "DFU through bluetoothd").
struct LinkBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Secure DFU through bluetoothd against dfu-sim, against the link's protocol bound.",
        discussion: """
            Serves `dfu-sim --simulate secure` on --peripheral-adapter (a new process for each \
            step, stopped by its pid) and updates it from --adapter. Measures the link at the \
            start and at the end of the run (control point round trip, packet receipt round \
            trip, raw write-without-response rate through AcquireWrite); in between runs signed \
            Secure DFUs with default options through AcquireWrite and through pipelined \
            WriteValue, and sends each AcquireWrite image with a plain client too (Nordic's \
            libraries' current defaults: a receipt every 12 packets waited for, Calculate \
            Checksum for every object, every request answered before the next). Before the \
            measured updates each client, and each write path, sends a 12 KiB image once, \
            untimed: under TCG the first run of any code pays for translating it, which would \
            otherwise land on whichever update comes first. Prints each \
            DFU's throughput, the protocol bound of the link (the mean of both measurements; \
            and the bound with dfu-sim's flash model), their ratios, the updater's CPU seconds \
            per MB (this process: user + system), the updater over the plain client and \
            WriteValue over AcquireWrite; then, over the --repeats updates of each size and \
            path, the median of each ratio (a 100 KiB update varies by about 10 % from one to \
            the next under TCG). Needs two BlueZ adapters that see each other and root \
            (dfu-sim): in practice the VM, scripts/vm/bench.sh.
            """)

    @OptionGroup var adapters: BenchAdapterOptions

    @Option(help: "Image sizes in bytes, updated through AcquireWrite.")
    var sizes: [Int] = [100 * 1024, 1024 * 1024]

    @Option(help: "Image sizes in bytes, updated through pipelined WriteValue as well.")
    var writeValueSizes: [Int] = [100 * 1024]

    @Option(
        help:
            "Updates of each size and write path, each followed by the plain client's; the report adds their medians."
    )
    var repeats = 3

    @Option(help: "Round trips measured (the median counts).")
    var roundTrips = 31

    @Option(help: "Packets in the long raw-rate run (the short one has a tenth).")
    var probePackets = 600

    @Option(help: "Times each raw-rate run is repeated (the fastest counts).")
    var probeRepeats = 4

    @Option(help: "The simulated device's page erase time in ms (default: the nRF52's 85).")
    var eraseMs: Int?

    @Flag(help: "The simulated device's flash takes no time (dfu-sim --instant-flash; not with --erase-ms).")
    var instantFlash = false

    @Flag(inversion: .prefixedNo, help: "Also update each --sizes image with the plain client.")
    var plainClient = true

    @Flag(help: "JSON Lines instead of text.")
    var json = false

    func validate() throws {
        guard (sizes + writeValueSizes).allSatisfy({ $0 > 0 }), !sizes.isEmpty else {
            throw ValidationError("--sizes and --write-value-sizes take positive byte counts")
        }
        guard repeats > 0, roundTrips > 0, probeRepeats > 0, probePackets >= 10,
            probePackets <= Int(UInt16.max)
        else {
            throw ValidationError(
                "--repeats, --round-trips and --probe-repeats must be positive, --probe-packets 10…65535")
        }
        if instantFlash && eraseMs != nil {
            throw ValidationError("--instant-flash takes no time to erase either; leave out --erase-ms")
        }
    }

    func run() async throws {
        let signing = try BenchSigningKey(benchmark: "link")
        defer { signing.remove() }
        let key = signing.key
        let report = LinkReport(json: json)
        let bankKiB = ((sizes + writeValueSizes).max()! + 1023) / 1024
        var simulatorArguments = [
            "--simulate", "secure", "--sim-public-key", signing.publicKeyFile.path, "--sim-bank-kib",
            "\(max(900, bankKiB))",
        ]
        if let eraseMs { simulatorArguments += ["--sim-fault", "slow-flash=\(eraseMs)"] }
        if instantFlash { simulatorArguments.append("--instant-flash") }
        let serve = {
            try DFUSimProcess(
                executable: adapters.dfuSimExecutable,
                arguments: ["--adapter", adapters.peripheralAdapter] + simulatorArguments)
        }

        let probe = {
            try await withSimulator(serve) { address in
                try await LinkProbe.measure(
                    central: try await BlueZCentral(adapter: adapters.adapter), address: address,
                    roundTrips: roundTrips, longRun: probePackets, repeats: probeRepeats)
            }.value
        }
        let linkAtStart = try await probe()
        report.link(linkAtStart, measured: "start")
        try await warmUp(key: key, serve)
        report.warmUp(imageBytes: Self.warmUpBytes)
        var runs: [(run: LinkUpdateRun, initPacketBytes: Int, plainClient: Duration?)] = []
        for (size, acquireWrite) in sizes.map({ ($0, true) }) + writeValueSizes.map({ ($0, false) }) {
            let package = try Self.package(size: size, key: key)
            for _ in 0..<repeats {
                let (run, plain) = try await send(package, acquireWrite: acquireWrite, serve)
                runs.append((run, package.images[0].initPacket?.count ?? 0, plain))
            }
        }
        let linkAtEnd = try await probe()
        report.link(linkAtEnd, measured: "end")
        // The bound of the whole run: the link drifts over the minutes the updates take.
        let link = LinkFigures.mean(linkAtStart, linkAtEnd)
        report.link(link, measured: "mean")
        var timing = SimulationTiming()
        if let eraseMs { timing.pageErase = .milliseconds(eraseMs) }
        if instantFlash { timing.makeFlashInstant() }
        var ratios: [Figure: [Double]] = [:]
        var speeds: [Figure: [Double]] = [:]
        for (run, initBytes, plain) in runs {
            let protocolBound = ProtocolBound(link: link, flash: nil).duration(
                imageBytes: run.imageBytes, initPacketBytes: initBytes)
            let deviceBound = ProtocolBound(link: link, flash: timing).duration(
                imageBytes: run.imageBytes, initPacketBytes: initBytes)
            report.update(
                run, imageBytes: run.imageBytes, protocolBound: protocolBound, deviceBound: deviceBound)
            let path = run.acquireWrite ? "acquire_write" : "write_value"
            ratios[Figure("\(path)/protocol_bound", run.imageBytes), default: []].append(
                protocolBound / run.transfer)
            ratios[Figure("\(path)/device_bound", run.imageBytes), default: []].append(
                deviceBound / run.transfer)
            speeds[Figure(path, run.imageBytes), default: []].append(run.bytesPerSecond)
            if let plain {
                report.plainClient(plain, imageBytes: run.imageBytes, updater: run.transfer)
                ratios[Figure("updater/plain_client", run.imageBytes), default: []].append(
                    plain / run.transfer)
            }
        }
        reportMedians(ratios: ratios, speeds: speeds, report)
    }

    /// One figure of the run's updates of one image size (a ratio, or a write path's speed).
    private struct Figure: Hashable, Comparable {
        var name: String
        var imageBytes: Int

        init(_ name: String, _ imageBytes: Int) {
            self.name = name
            self.imageBytes = imageBytes
        }

        static func < (a: Self, b: Self) -> Bool { (a.imageBytes, a.name) < (b.imageBytes, b.name) }
    }

    /// The medians over the repeats: each ratio (to the bounds, and over the plain client's
    /// update right after each), and WriteValue over AcquireWrite from their median speeds.
    private func reportMedians(ratios: [Figure: [Double]], speeds: [Figure: [Double]], _ report: LinkReport) {
        for (figure, values) in ratios.sorted(by: { $0.key < $1.key }) {
            report.median(figure.name, imageBytes: figure.imageBytes, of: values.count, values.median!)
        }
        for (figure, writeValue) in speeds.sorted(by: { $0.key < $1.key }) where figure.name == "write_value"
        {
            guard let acquireWrite = speeds[Figure("acquire_write", figure.imageBytes)] else { continue }
            report.median(
                "write_value/acquire_write", imageBytes: figure.imageBytes, of: writeValue.count,
                writeValue.median! / acquireWrite.median!)
        }
    }

    /// The image each client sends once before the measured updates: three objects, so that the
    /// per-object path runs more than once.
    static let warmUpBytes = 12 * 1024

    /// One untimed update by every client and write path the run measures (docs/benchmarks.md,
    /// "What the bench does"): under TCG the first run of code is translated as it goes, a cost of the
    /// emulator that the first measured update alone would otherwise pay.
    private func warmUp(key: P256.Signing.PrivateKey, _ serve: () throws -> DFUSimProcess) async throws {
        let package = try Self.package(size: Self.warmUpBytes, key: key)
        for acquireWrite in [true] + (writeValueSizes.isEmpty ? [] : [false]) {
            _ = try await send(package, acquireWrite: acquireWrite, serve)
        }
    }

    /// `package` sent by the updater to a new simulator, then (through `AcquireWrite`, unless
    /// `--no-plain-client`) by the plain client to another; checks that each holds it.
    private func send(
        _ package: DFUPackage, acquireWrite: Bool, _ serve: () throws -> DFUSimProcess
    ) async throws -> (run: LinkUpdateRun, plainClient: Duration?) {
        let (run, held) = try await withSimulator(serve) { address in
            try await Self.update(
                package, address: address, adapter: adapters.adapter, acquireWrite: acquireWrite)
        }
        try Self.check(held, holds: package)
        let plain = acquireWrite && plainClient ? try await plainUpdate(package, serve) : nil
        return (run, plain)
    }

    /// `package` sent by `PlainSecureClient` to a new simulator; returns its transfer time.
    private func plainUpdate(_ package: DFUPackage, _ serve: () throws -> DFUSimProcess) async throws
        -> Duration
    {
        let (duration, held) = try await withSimulator(serve) { address in
            try await PlainSecureClient.send(package, to: address, from: adapters.adapter)
        }
        try Self.check(held, holds: package)
        return duration
    }

    /// Starts a simulator, runs `body` with its address, then stops it by its pid and has the
    /// updater's adapter forget the device (so that no link or GATT cache outlives the step).
    private func withSimulator<T>(
        _ serve: () throws -> DFUSimProcess, _ body: (String) async throws -> T
    ) async throws -> (value: T, held: [String: Any]) {
        try await serve().serving(body) { address in
            await (try? BlueZCentral(adapter: adapters.adapter))?.forget(address)
        }
    }
}
