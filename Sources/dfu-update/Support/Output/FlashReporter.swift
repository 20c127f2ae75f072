import DFUSupport
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU

/// Prints an update's events: JSON Lines on stdout (`--json`), or for a person on stderr — a
/// progress bar redrawn in place on a terminal (`TerminalDisplay`), plain lines otherwise. Log
/// lines are the library's own, through its swift-log `Logger` (stderr, at the level
/// `--verbose`/`--log-level` chose), printed above the bar.
final class FlashReporter: @unchecked Sendable {
    private let device: String
    private let json: Bool
    private let display = TerminalDisplay.shared
    /// The last progress shown as a bar, until its part ends.
    private var bar: DFUProgress?
    private var lastPlainPercent = -1
    /// The version check, for the result line of a skipped device.
    private var versionCheck: DFUVersionCheck?
    /// How an SMP update activates its images; nil for Nordic DFU.
    private let activation: DFUOptions.SMP.Activation?
    /// Whether the device is simulated: its durations are link time the simulation counts.
    private let simulated: Bool

    init(device: String, json: Bool, activation: DFUOptions.SMP.Activation? = nil, simulated: Bool = false) {
        self.device = device
        self.json = json
        self.activation = activation
        self.simulated = simulated
    }

    func report(_ event: DFUEvent) {
        if case .log = event {
            // the library logs the line itself, through the swift-log handler the CLI set up
        } else if json {
            if let line = jsonLine(event) { Output.line(line) }
        } else {
            human(event)
        }
    }

    /// The contract's `simulator` event.
    func simulator(_ members: [(String, JSONValue)]) {
        guard json else { return }
        Output.line(.object([("event", .string("simulator")), ("device", .string(device))] + members))
    }

    // MARK: JSON Lines

    private func jsonLine(_ event: DFUEvent) -> JSONValue? {
        let head: [(String, JSONValue)] = [("device", .string(device))]
        switch event {
        case .state(let state):
            return .object([("event", .string("state"))] + head + [("state", .string(state.identifier))])
        case .version(let check):
            return .object(
                [("event", .string("version"))] + head + [
                    ("installed", .optional(check.installed)), ("package", .optional(check.package)),
                    ("decision", .string(check.decision.rawValue)),
                ])
        case .progress(let progress):
            return .object(
                [("event", .string("progress"))] + head + [
                    ("part", .int(progress.part)), ("total_parts", .int(progress.totalParts)),
                    ("percent", .int(progress.percent)), ("bytes_sent", .int(progress.bytesSent)),
                    ("part_bytes", .int(progress.partBytes)),
                    ("speed_bytes_per_second", .double(progress.currentSpeedBytesPerSecond)),
                    ("avg_speed_bytes_per_second", .double(progress.averageSpeedBytesPerSecond)),
                ])
        case .log:
            return nil
        case .result(let result):
            let error: JSONValue =
                result.failure.map { failure in
                    .object([
                        ("code", .int(failure.error.rawValue)), ("name", .string(failure.error.name)),
                        ("message", .string(failure.message)),
                    ])
                } ?? .null
            return .object(
                [("event", .string("result"))] + head + [
                    ("result", .string(result.identifier)), ("error", error),
                    ("bytes_sent", .int(result.bytesSent)), ("bytes_resent", .int(result.bytesResent)),
                    ("bytes_resent_for_pace", .int(result.bytesResentForPace)),
                    ("duration_seconds", .seconds(result.duration)),
                    ("retries", .int(result.retries)),
                    ("activation", .optional(completedActivation(result)?.contractName)),
                ])
        }
    }

    // MARK: Human output

    private func human(_ event: DFUEvent) {
        switch event {
        case .state(let state):
            // Uploading shows as the progress bar, and the result line follows Completed.
            guard state != .uploading, state != .completed, state != .aborted else { return }
            line("\(state)…")
        case .version(let check):
            versionCheck = check
            let installed = check.installed ?? "unknown"
            let packaged = check.package ?? "unknown"
            let current = check.deviceIsNewer ? "the device runs a newer version" : "up to date"
            let decision =
                switch check.decision {
                case .update: "updating"
                case .skip: "\(current), skipping (use --force to update anyway)"
                case .forced: "\(current), updating anyway (--force)"
                case .unknown: "cannot compare, updating"
                case .activate: "a slot holds the package's image: activating it, nothing to upload"
                case .confirm: "the device runs the package's image on test: confirming it, nothing to upload"
                }
            line("installed \(installed), package \(packaged): \(decision)")
        case .progress(let progress):
            progressLine(progress)
        case .log:
            break  // logged in report(_:)
        case .result(let result):
            switch result.outcome {
            case .completed:
                // bytes the device dropped while its flash was busy are its pace, not a fault
                let lost = result.bytesResent - result.bytesResentForPace
                let resent = lost > 0 ? " (\(lost) of them resent)" : ""
                let clock = simulated ? " of simulated link time" : ""
                line(
                    "updated \(device): \(Plural.count(result.bytesSent, "byte"))\(resent) in \(result.duration.secondsForPeople)\(clock)"
                        + (completedActivation(result)?.sentence ?? ""))
            case .skipped where versionCheck?.deviceIsNewer == true:
                line("\(device) runs a newer version than the package; nothing was sent")
            case .skipped: line("\(device) is up to date")
            case .aborted:
                // an interrupted part's bar is no result: it goes, the line says what happened
                bar = nil
                display.clearBlock()
                line("aborted; \(device) can take the update again")
            case .failed(let failure):
                line("error: \(failure.message) (\(failure.error.name), code \(failure.error.rawValue))")
            }
        }
    }

    /// The activation of an SMP update that completed.
    private func completedActivation(_ result: DFUResult) -> DFUOptions.SMP.Activation? {
        guard case .completed = result.outcome else { return nil }
        return activation
    }

    private func progressLine(_ progress: DFUProgress) {
        if display.isTerminal {
            bar = progress
            display.show([barText(progress, finished: false)])
        } else if progress.percent == 100 || progress.percent / 10 > lastPlainPercent / 10 {
            lastPlainPercent = progress.percent
            let rate = String(format: "%.1f kB/s", progress.averageSpeedBytesPerSecond / 1000)
            display.print(
                "part \(progress.part)/\(progress.totalParts): \(progress.percent)% "
                    + "(\(progress.bytesSent)/\(progress.partBytes) bytes, \(rate))")
        }
    }

    /// `part 1/2 [#####-----]  50%  20.1 kB/s  ETA 3 s`; once finished, without the ETA. The
    /// bar is 30 characters, fewer on a narrow terminal, so that the line never wraps.
    private func barText(_ progress: DFUProgress, finished: Bool) -> String {
        let speed = progress.averageSpeedBytesPerSecond
        var after =
            "] \(String(progress.percent).leftPadded(to: 3))%  " + String(format: "%.1f kB/s", speed / 1000)
        if !finished {
            let remaining = Double(progress.partBytes - progress.bytesSent)
            after += "  ETA " + (speed > 0 ? (remaining / speed).secondsForPeople : "--")
        }
        let before = "part \(progress.part)/\(progress.totalParts) ["
        let width = min(30, max(5, display.width - before.count - after.count))
        let filled = progress.percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return display.fit(before + bar + after)
    }

    /// A line above the bar; the bar of a part that has ended stays as a line of its own.
    private func line(_ text: String) {
        if let bar {
            self.bar = nil
            display.clearBlock()
            display.print(barText(bar, finished: true))
        }
        display.print(text)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
