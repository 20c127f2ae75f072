import DFUFleet
import DFUSimulator
import DFUSupport
import Foundation
import GATT
import NordicDFU

/// Prints a fleet's events: the contract's JSON Lines for every device (`--json`), else a live
/// view on a terminal or one line per finished device; the summary table at the end.
final class FleetReporter: Sendable {
    private let json: Bool
    private let plan: Bool
    private let simulated: [String: SimulatedCentral]
    /// One contract printer per device, for its state, version and progress events.
    private let printers = Locked([String: FlashReporter]())
    private let live: FleetLiveView?

    /// `live`: a live view of the devices when stderr is a terminal (the fleet's devices are
    /// known at the start; a gateway's come and go, and it prints lines instead).
    init(json: Bool, plan: Bool, simulated: [String: SimulatedCentral], live: Bool = true) {
        self.json = json
        self.plan = plan
        self.simulated = simulated
        self.live = live && !json && isatty(STDERR_FILENO) == 1 ? FleetLiveView() : nil
    }

    /// Called in the fleet's tasks as events happen.
    func observe(_ event: FleetEvent) {
        if json {
            jsonLines(event)
        } else {
            human(event)
        }
    }

    func summary(_ report: FleetReport) {
        live?.end()
        if json {
            Output.line(
                .object(
                    [("event", .string("summary")), ("device", .null)] + FleetReportFile.counts(report)
                        + [("duration_seconds", .seconds(report.duration))]))
        } else if !plan {
            // on a terminal each row fits its width: a long last column is cut rather than wrapped
            let display = TerminalDisplay.shared
            let fits = display.isTerminal && isatty(STDOUT_FILENO) == 1
            Output.line(FleetReportFile.table(report, fitting: fits ? display.fit : { $0 }))
        }
    }

    // MARK: JSON Lines

    private func jsonLines(_ event: FleetEvent) {
        switch event {
        case .planned(let entry):
            Output.line(.object([("event", .string("plan"))] + FleetPlanLine.members(entry)))
        case .device(let device, let deviceEvent):
            if case .result = deviceEvent { return }  // the fleet's own result line follows
            printer(device).report(deviceEvent)
        case .finished(let report):
            if let central = simulated[report.device], report.result != .notStarted,
                let snapshot = central.snapshots.first
            {
                printer(report.device).simulator(snapshot.contractMembers)
            }
            Output.line(.object([("event", .string("result"))] + FleetReportFile.members(report)))
        case .halted(let reason):
            Output.line(
                .object([("event", .string("halted")), ("device", .null), ("reason", .string(reason))]))
        }
    }

    private func printer(_ device: String) -> FlashReporter {
        printers.withLock { printers in
            if let printer = printers[device] { return printer }
            let printer = FlashReporter(device: device, json: true)
            printers[device] = printer
            return printer
        }
    }

    // MARK: Human output

    private func human(_ event: FleetEvent) {
        switch event {
        case .planned(let entry):
            live?.planned()
            if plan { Output.line(FleetPlanLine.text(entry)) }
        case .device(let device, let deviceEvent):
            // log lines reach the terminal once, through the swift-log handler
            live?.update(device, deviceEvent)
        case .finished(let report):
            live?.finished(report)
            guard !plan else { return }
            let detail =
                report.failure?.explanation ?? report.reason ?? report.versionAfter.map { "now runs \($0)" }
                ?? ""
            message("\(report.device): \(report.result.rawValue)\(detail.isEmpty ? "" : " — \(detail)")")
        case .halted(let reason):
            message("rollout stopped: \(reason)")
        }
    }

    private func message(_ text: String) { Output.error(text) }
}
