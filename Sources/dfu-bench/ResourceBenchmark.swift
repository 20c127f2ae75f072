import ArgumentParser
import BlueZ
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU

/// `dfu-bench resources`: many updates of one real device (in practice `dfu-sim` in the VM of
/// scripts/vm/run.sh) with `DFUUpdater` through one `BlueZCentral` in this one process, as
/// fleet tooling runs them; open file descriptors and resident memory of this process (and of
/// the processes given with `--watch`) after a warm-up and after the updates.
struct ResourceBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resources",
        abstract: "File descriptors and resident memory across many updates through BlueZ.",
        discussion: """
            Updates --device with --package (forced, so that every run sends the whole image) \
            --warm-up times, measures, updates it --updates times more, measures again. Prints \
            one JSON line per measured process and one with the run's outcome. Run by \
            scripts/vm/resource-run.sh (docs/reliability.md).
            """)

    @Option(help: "The device to update: its address.")
    var device: String

    @Option(help: "The adapter of the updater.")
    var adapter = "hci0"

    @Option(help: "The package to send.")
    var package = "Firmware/secure_app.zip"

    @Option(help: "Updates measured.")
    var updates = 100

    @Option(help: "Updates before the first measurement (threads, caches and pools warm up).")
    var warmUp = 5

    @Option(help: "Also measure these processes (pids), e.g. dfu-sim and bluetoothd.")
    var watch: [Int32] = []

    func run() async throws {
        let firmware = try DFUPackage(contentsOf: URL(fileURLWithPath: package))
        let central = try await BlueZCentral(adapter: adapter)
        var options = DFUOptions()
        options.force = true
        var outcomes: [String: Int] = [:]
        func update() async {
            let result = await DFUUpdater(
                package: firmware, central: central, device: DeviceIdentifier(device), options: options
            ).run()
            let outcome =
                switch result.outcome {
                case .completed: "completed"
                case .skipped: "skipped"
                case .aborted: "aborted"
                case .failed(let failure): "failed: \(failure.error.name)"
                }
            outcomes[outcome, default: 0] += 1
        }
        for _ in 0..<warmUp { await update() }
        let processes = [("dfu-bench", "self")] + watch.map { (Self.name(of: $0), String($0)) }
        let before = processes.map { ProcessResources(pid: $0.1) }
        outcomes = [:]
        let started = ContinuousClock.now
        for _ in 0..<updates { await update() }
        let seconds = (ContinuousClock.now - started).seconds
        for ((name, pid), (first, last)) in zip(
            processes, zip(before, processes.map { ProcessResources(pid: $0.1) }))
        {
            let added = last.descriptors.subtracting(first.descriptors).sorted().map { "\"\($0)\"" }
            print(
                "{\"benchmark\":\"resources\",\"process\":\"\(name)\",\"pid\":\"\(pid)\","
                    + "\"fds_before\":\(first.fds),\"fds_after\":\(last.fds),"
                    + "\"fds_added\":[\(added.joined(separator: ","))],"
                    + "\"resident_kib_before\":\(first.residentKiB),\"resident_kib_after\":\(last.residentKiB)}"
            )
        }
        let counted = outcomes.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }
        print(
            "{\"benchmark\":\"resources_run\",\"updates\":\(updates),\"warm_up\":\(warmUp),"
                + "\"seconds\":\(String(format: "%.1f", seconds)),\"outcomes\":{\(counted.joined(separator: ","))}}"
        )
        guard outcomes["completed"] == updates else { throw ExitCode.failure }
    }

    /// The command name of process `pid` (/proc/PID/comm).
    private static func name(of pid: Int32) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "?")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Open file descriptors and resident memory of a process, from /proc (-1 when unreadable).
struct ProcessResources {
    /// Each open descriptor as "number → what it refers to" (the /proc/PID/fd link), so that a
    /// descriptor more after a run can be told from one replaced.
    var descriptors: Set<String>
    var residentKiB: Int

    /// A readable fd directory lists at least the descriptor reading it.
    var fds: Int { descriptors.isEmpty ? -1 : descriptors.count }

    /// `pid` is a process id or `self`.
    init(pid: String) {
        let directory = "/proc/\(pid)/fd"
        let numbers = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        descriptors = Set(
            numbers.map { number in
                let target =
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(number)"))
                return "\(number) → \(target ?? "?")"
            })
        let statm = (try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8)) ?? ""
        let fields = statm.split(separator: " ")
        residentKiB =
            fields.count > 1 ? (Int(fields[1]) ?? -1) * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024 : -1
    }
}
