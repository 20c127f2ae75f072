import DFUSupport

/// Lets a waiting loop sleep until a signal or a timeout, whichever comes first; a signal given
/// while nobody waits wakes the next wait at once.
final class Wakeup: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
        var timer: Task<Void, Never>?
    }

    private let state = Locked(State())

    func signal() {
        let (waiter, timer) = state.withLock { state in
            defer {
                state.waiter = nil
                state.timer = nil
            }
            if state.waiter == nil { state.signalled = true }
            return (state.waiter, state.timer)
        }
        // a timer left sleeping would wake a later wait for nothing
        timer?.cancel()
        waiter?.resume()
    }

    func wait(atMost timeout: Duration) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                guard !state.signalled else {
                    state.signalled = false
                    return true
                }
                state.waiter = continuation
                state.timer = Task {
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    self.signal()
                }
                return false
            }
            if now { continuation.resume() }
        }
    }
}
