import DFUSupport

/// Lets a waiting loop sleep until a signal or a timeout, whichever comes first; a signal given
/// while nobody waits wakes the next wait at once.
final class Wakeup: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    func signal() {
        state.withLock { state in
            defer { state.waiter = nil }
            if state.waiter == nil { state.signalled = true }
            return state.waiter
        }?.resume()
    }

    func wait(atMost timeout: Duration) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                guard !state.signalled else {
                    state.signalled = false
                    return true
                }
                state.waiter = continuation
                return false
            }
            if now { return continuation.resume() }
            Task {
                try? await Task.sleep(for: timeout)
                self.signal()
            }
        }
        state.withLock { $0.signalled = false }
    }
}
