import DFUSupport
import GATT

/// Fires once, when a link goes down; waiters resume then, or give up after a real-time timeout.
final class DisconnectionSignal: @unchecked Sendable {
    private struct State {
        var isFired = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    var isFired: Bool { state.withLock { $0.isFired } }

    func fire() {
        let waiters = state.withLock { state in
            state.isFired = true
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once fired; throws `GATTError.timeout` when `timeout` (real time) passes first.
    func wait(timeout: Duration) async throws {
        if isFired { return }
        try await withRealTimeout(timeout, waitingFor: "the simulated device to disconnect") {
            await self.waitUntilFired()
        }
    }

    private func waitUntilFired() async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.isFired || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
