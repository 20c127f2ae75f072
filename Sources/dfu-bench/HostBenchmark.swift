import ArgumentParser
import BlueZ
import DFUSupport
import Foundation
import NordicDFU
import SimulatorProcess

/// `dfu-bench host`: the updater's CPU per MB through the D-Bus path on a host without
/// Bluetooth: a private dbus-daemon, `dfu-sim --bluetoothd-stand-in` as org.bluez, and the
/// updater (`BlueZCentral`, AcquireWrite and AcquireNotify) in this process (docs/engine.md,
/// "CPU").
struct HostBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "host",
        abstract: "The updater's CPU per MB through D-Bus, against dfu-sim standing in for bluetoothd.",
        discussion: """
            Starts a private dbus-daemon and, for each size, a new `dfu-sim --simulate secure \
            --bluetoothd-stand-in` on it (stopped by its pid), then updates that device with \
            default options from this process, with DBUS_SYSTEM_BUS_ADDRESS naming the private \
            bus. Prints each update's throughput and this process's user + system CPU seconds \
            per MB sent: the updater's own cost of the D-Bus path, measured natively, which the \
            VM (`dfu-bench link`, TCG) cannot. Then the same image goes to another new \
            dfu-sim through the bench's plain client (Nordic's current defaults on the same \
            BlueZ module; --no-plain-client skips it), whose CPU per MB is the reference. No \
            radio: the stand-in answers at once, so the throughput says what the updater and the \
            stand-in manage, not what a link allows. With --instant-flash not even dfu-sim's flash \
            paces the updates: the CPU per MB is then the work itself, without the cost of waking \
            up between objects (docs/engine.md, "CPU").
            """)

    @Option(help: "Image sizes in bytes.")
    var sizes: [Int] = [1024 * 1024]

    @Option(help: "Updates per size (each against a new dfu-sim).")
    var repeats = 3

    @Option(help: "The simulated device's page erase time in ms (the nRF52's is 85).")
    var eraseMs = 0

    @Flag(help: "The simulated device's flash takes no time (dfu-sim --instant-flash; not with --erase-ms).")
    var instantFlash = false

    @Option(help: "The dfu-sim executable (default: the one next to dfu-bench).")
    var dfuSim: String?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Also send each image with the plain client (its CPU per MB is the reference for the updater's).")
    var plainClient = true

    @Flag(help: "JSON Lines instead of text.")
    var json = false

    func validate() throws {
        guard sizes.allSatisfy({ $0 > 0 }), !sizes.isEmpty, repeats > 0 else {
            throw ValidationError("--sizes takes positive byte counts, --repeats a positive count")
        }
        if instantFlash && eraseMs != 0 {
            throw ValidationError("--instant-flash takes no time to erase either; leave out --erase-ms")
        }
    }

    func run() async throws {
        let signing = try BenchSigningKey(benchmark: "host")
        defer { signing.remove() }
        let key = signing.key
        let bus = try PrivateBus()
        defer { bus.kill() }
        // the updater and dfu-sim both take the private bus for the system bus
        setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)
        let report = LinkReport(json: json)
        let arguments =
            [
                "--bluetoothd-stand-in", "--simulate", "secure", "--sim-public-key",
                signing.publicKeyFile.path,
                "--sim-bank-kib", "\(max(900, (sizes.max()! + 1023) / 1024))",
            ] + (instantFlash ? ["--instant-flash"] : ["--sim-fault", "slow-flash=\(eraseMs)"])
        for size in sizes {
            let package = try LinkBenchmark.package(size: size, key: key)
            for _ in 0..<repeats {
                let updater = try await withStandIn(arguments, holding: package) { address in
                    try await LinkBenchmark.update(
                        package, address: address, adapter: "hci0", acquireWrite: true)
                }
                report.hostUpdate(updater)
                guard plainClient else { continue }
                let plain = try await withStandIn(arguments, holding: package) { address in
                    try await Self.plainUpdate(package, address: address)
                }
                report.hostPlainClient(plain, updater: updater)
            }
        }
    }

    /// Runs `body` against a new stand-in, stops it by its pid and checks it holds `package`.
    private func withStandIn<T>(
        _ arguments: [String], holding package: DFUPackage, _ body: (String) async throws -> T
    ) async throws -> T {
        let (value, held) = try await DFUSimProcess(
            executable: dfuSim.map { URL(fileURLWithPath: $0) } ?? DFUSimProcess.besideThisProgram,
            arguments: arguments
        ).serving(body)
        try LinkBenchmark.check(held, holds: package)
        return value
    }

    /// `package` sent by `PlainSecureClient`, with the CPU this process spent on it.
    private static func plainUpdate(_ package: DFUPackage, address: String) async throws -> PlainClientRun {
        let cpuBefore = LinkBenchmark.processCPUSeconds()
        let transfer = try await PlainSecureClient.send(package, to: address, from: "hci0")
        return PlainClientRun(
            // firmware bytes, as the updater's `bytesSent` counts them
            transfer: transfer, bytesSent: package.images[0].firmware.count,
            cpuSeconds: LinkBenchmark.processCPUSeconds() - cpuBefore)
    }
}

/// One update by `PlainSecureClient` through the stand-in.
struct PlainClientRun {
    var transfer: Duration
    var bytesSent: Int
    var cpuSeconds: Double

    var cpuSecondsPerMB: Double { cpuSeconds / (Double(bytesSent) / 1_000_000) }
}
