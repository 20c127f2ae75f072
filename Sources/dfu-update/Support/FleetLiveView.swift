import DFUSupport
import Foundation
import GATT
import NordicDFU

/// The live view on a terminal (stderr): one line per active device, then the totals and a
/// rough estimate of the time left, redrawn in place at most ten times a second. Messages scroll
/// above it.
final class FleetLiveView: Sendable {
    private struct Active {
        var state = "connecting"
        var progress: DFUProgress?
    }

    private struct State {
        var active: [String: Active] = [:]
        var order: [String] = []
        var finished = 0
        var failed = 0
        var bytes = 0
        var drawnLines = 0
        var lastDraw: ContinuousClock.Instant?
        /// Devices in the run: each has one plan event.
        var total = 0
    }

    private let state = Locked(State())
    private let start = ContinuousClock.now

    func update(_ device: String, _ event: DFUEvent) {
        state.withLock { state in
            if state.active[device] == nil {
                state.active[device] = Active()
                state.order.append(device)
            }
            switch event {
            case .state(let value): state.active[device]?.state = value.identifier
            case .progress(let progress): state.active[device]?.progress = progress
            default: break
            }
            draw(&state, force: false)
        }
    }

    func planned() { state.withLock { $0.total += 1 } }

    func finished(_ report: FleetDeviceReport) {
        state.withLock { state in
            state.active[report.device] = nil
            state.order.removeAll { $0 == report.device }
            state.finished += 1
            if report.isFailure { state.failed += 1 }
            state.bytes += report.bytesSent
            draw(&state, force: true)
        }
    }

    /// Prints `text` above the live lines.
    func print(_ text: String) {
        state.withLock { state in
            write(clear(&state) + text + "\n")
            draw(&state, force: true)
        }
    }

    /// Removes the live lines for good.
    func end() { state.withLock { write(clear(&$0)) } }

    private func clear(_ state: inout State) -> String {
        defer { state.drawnLines = 0 }
        return state.drawnLines > 0 ? "\u{1B}[\(state.drawnLines)F\u{1B}[J" : ""
    }

    private func draw(_ state: inout State, force: Bool) {
        let now = ContinuousClock.now
        if !force, let last = state.lastDraw, now - last < .milliseconds(100) { return }
        state.lastDraw = now
        var lines = state.order.map { device -> String in
            let active = state.active[device]!
            guard let progress = active.progress, active.state == "uploading" else {
                return "  \(device)  \(active.state)"
            }
            let rate = String(format: "%.1f kB/s", progress.averageSpeedBytesPerSecond / 1000)
            return "  \(device)  part \(progress.part)/\(progress.totalParts)  \(progress.percent)%  \(rate)"
        }
        let elapsed = (now - start).seconds
        let rate = elapsed > 0 ? Double(state.bytes) / elapsed / 1000 : 0
        // A rough estimate: the time per finished device so far, for the devices left.
        let left = state.total - state.finished
        let eta =
            state.finished > 0
            ? String(format: "%.0f s", elapsed / Double(state.finished) * Double(left)) : "--"
        lines.append(
            "\(state.finished)/\(state.total) done (\(state.failed) failed), \(state.order.count) active, "
                + String(format: "%.1f kB/s overall, %.0f s elapsed, ETA ", rate, elapsed) + eta)
        write(clear(&state) + lines.joined(separator: "\n") + "\n")
        state.drawnLines = lines.count
    }

    private func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
