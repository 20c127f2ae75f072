import DFUFleet
import DFUSupport
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU

/// The live view on a terminal (stderr): one line per active device, then the totals and a
/// rough estimate of the time left, redrawn in place (`TerminalDisplay`) on every event, at most
/// ten times a second, and twice a second while nothing happens, so that the clock ticks.
/// Messages scroll above it.
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
        var lastDraw: ContinuousClock.Instant?
        /// Devices in the run: each has one plan event.
        var total = 0
        var ended = false
    }

    private let state = Locked(State())
    private let start = ContinuousClock.now
    private let display = TerminalDisplay.shared
    private let ticker = Locked<Task<Void, Never>?>(nil)

    init() {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                guard let self else { return }
                self.state.withLock { self.draw(&$0, force: false) }
            }
        }
        ticker.withLock { $0 = task }
    }

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
            draw(&state, force: true)
        }
    }

    /// Removes the live lines for good.
    func end() {
        ticker.withLock { $0?.cancel() }
        state.withLock { state in
            state.ended = true
            display.clearBlock()
        }
    }

    private func draw(_ state: inout State, force: Bool) {
        guard !state.ended, state.total > 0 else { return }
        let now = ContinuousClock.now
        if !force, let last = state.lastDraw, now - last < .milliseconds(100) { return }
        state.lastDraw = now
        var lines = state.order.map { device -> String in
            let active = state.active[device]!
            guard let progress = active.progress, active.state == "uploading" else {
                return "  \(device)  \(active.state)"
            }
            let rate = String(format: "%.1f kB/s", progress.currentSpeedBytesPerSecond / 1000)
            return "  \(device)  part \(progress.part)/\(progress.totalParts)  \(progress.percent)%  \(rate)"
        }
        // what the uploads carry now, each at its own link's speed
        let uploading = state.order.compactMap { device in
            state.active[device].flatMap { $0.state == "uploading" ? $0.progress : nil }
        }
        let rate = uploading.map(\.currentSpeedBytesPerSecond).reduce(0, +) / 1000
        let elapsed = (now - start).seconds
        // A rough estimate: the time per finished device so far, for the devices left.
        let left = state.total - state.finished
        let eta =
            state.finished > 0 ? (elapsed / Double(state.finished) * Double(left)).secondsForPeople : "--"
        lines.append(
            "\(state.finished)/\(state.total) done (\(state.failed) failed), \(state.order.count) active, "
                + String(format: "%.1f kB/s now, ", rate) + "\(Int(elapsed)) s elapsed, ETA \(eta)")
        display.show(lines)
    }
}
