import ArgumentParser
import CommandLineContract
import DFUFleet
import DFUSimulator
import DFUSupport
import Foundation
import GATT
import NordicDFU
import SimulatorCommandLine

/// `dfu-update fleet`: updates the devices of an inventory, many at once (docs/fleet.md).
struct FleetCommand: ContractCommand, OptionChecks {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Update many devices at once, from an inventory.",
        discussion: """
            Scans once per adapter for the inventory's devices, reads each one's version (and \
            hardware revision) to choose its package, then updates them, several at once. \
            Entries with a "simulate" object run as in-process simulated devices. The \
            inventory formats, rules, state file and report are described in docs/fleet.md. \
            A device that asks for security is paired as flash pairs (the inventory names its \
            passkey source, never the passkey; the pairing options stand for the devices it says \
            nothing about), and a bond the run made is removed once its device is done unless \
            --keep-bond (docs/pairing.md). \
            Exit 0 when every device was updated or up to date, 1 when any failed, 130 on Ctrl-C \
            (every update in progress is aborted; each device can take the update again).
            """)

    @Argument(help: "The inventory: JSON or CSV (docs/cli-contract.md, \"Fleet inventory\").")
    var inventory: String

    @Option(
        parsing: .unconditional,
        help: "The most devices updated at once, over all adapters, 1…1000 (default: 4).",
        transform: { try Ranged.integer($0, in: 1...1000) })
    var concurrency = 4

    @Option(
        name: .customLong("adapter"),
        help: "A Bluetooth adapter to use (hciN or its address); repeat for several (default: the first one)."
    )
    var adapters: [String] = []

    @Option(
        parsing: .unconditional,
        help: "The most connections asked of one Bluetooth adapter at once, 1…100 (default: 4).",
        transform: { try Ranged.integer($0, in: 1...100) })
    var adapterConnections = 4

    @Option(help: "Write the report of every device to this file (JSON).")
    var report: String?

    @Flag(help: "Print JSON Lines events (docs/cli-contract.md).")
    var json = false

    @Flag(
        help: "Dry run: find and read every device, show the package each would get and why; write nothing.")
    var plan = false

    @OptionGroup var safety: RolloutSafetyOptions

    @Option(
        help:
            "Remember finished devices in this file, an embedded rollout store (`rollout status --store FILE`); a run started again skips them."
    )
    var state: String?

    @OptionGroup var device: FleetDeviceOptions

    @OptionGroup var metrics: MetricsOptions

    @OptionGroup var logging: LoggingOptions

    func checkOptions() throws {
        for (option, path) in [("--report", report), ("--state", state)] {
            if let path, let problem = OutputFilePath.problem(path, option: option) {
                throw ValidationError(problem)
            }
        }
        let inventoryFile = (name: "the inventory", path: inventory)
        let stateFile = state.map { (name: "the --state file", path: $0) }
        try refuseWritingOver(state, option: "--state", inputs: [inventoryFile])
        try refuseWritingOver(
            report, option: "--report", inputs: [inventoryFile] + [stateFile].compactMap { $0 })
    }

    private func refuseWritingOver(_ path: String?, option: String, inputs: [(name: String, path: String)])
        throws
    {
        if let path, let problem = OutputFilePath.overwrites(path, option: option, inputs: inputs) {
            throw ValidationError(problem)
        }
    }

    func run() async throws {
        let metricsServer = try await metrics.start()
        // served while the fleet runs, stopped once it ended
        let serving = Task { try await metricsServer?.run() }
        defer { serving.cancel() }
        let setup = try await FleetSetup(self)
        let reporter = FleetReporter(
            json: json, plan: plan, simulated: setup.simulated)
        let fleetMetrics = FleetMetrics()
        let (controller, events) = setup.fleet.start { event in
            fleetMetrics.observe(event)
            reporter.observe(event)
        }
        let interrupted = Locked(false)
        let interrupt = InterruptHandler {
            interrupted.withLock { $0 = true }
            controller.cancel()
        }
        var final: FleetReport?
        for await output in events {
            if case .ended(let report) = output { final = report }
        }
        withExtendedLifetime(interrupt) {}
        guard let final else { throw ExitCode.interrupted }
        reporter.summary(final)
        if let report, !plan {
            do {
                try AtomicFile.write(FleetReportFile.json(final), to: URL(fileURLWithPath: report))
            } catch {
                // The devices are updated; the report is lost. Exit 1 so that a script notices.
                throw CommandFailure(
                    errorClass: "report_not_written",
                    message: "the fleet ran, but its report was not written: "
                        + OutputFilePath.writeFailure(report, option: "--report", error: error),
                    exitCode: .updateFailed)
            }
        }
        if interrupted.withLock({ $0 }) { throw ExitCode.interrupted }
        if !final.succeeded { throw ExitCode.updateFailed }
    }

    /// The fleet options these flags ask for.
    var options: FleetOptions {
        var options = device.fleetOptions
        options.concurrency = concurrency
        options.plan = plan
        options.canary = safety.canary
        options.maximumFailures = safety.maxFailures
        return options
    }
}
