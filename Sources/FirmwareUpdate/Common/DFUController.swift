import DFUSupport
import GATT

/// Steers a running update: pause, resume, abort. Safe to call from any task.
public final class DFUController: Sendable {
    private struct State {
        var paused = false
        var aborted = false
        var resumeWaiters: [CheckedContinuation<Void, Never>] = []
        var task: Task<Void, Never>?
    }

    private let state = Locked(State())

    /// A controller for one update; pass it to `DFUUpdater.start(controller:observer:)`.
    public init() {}

    /// Whether the update is paused.
    public var isPaused: Bool { state.withLock { $0.paused } }
    /// Whether the user aborted the update.
    public var isAborted: Bool { state.withLock { $0.aborted } }
    /// Whether the update is held at a checkpoint, waiting for `resume()` or `abort()`: from
    /// then on it sends and reports nothing.
    var isHolding: Bool { state.withLock { !$0.resumeWaiters.isEmpty } }

    /// Stops sending firmware before the next packet; the link stays up.
    public func pause() { state.withLock { $0.paused = true } }

    /// Continues a paused update.
    public func resume() {
        let waiters = state.withLock { state in
            state.paused = false
            defer { state.resumeWaiters = [] }
            return state.resumeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Stops the update: the device is told to abort (Secure) or reset (Legacy), so that it can
    /// take the update again, and the update ends with the `aborted` result.
    public func abort() {
        let (waiters, task) = state.withLock { state in
            state.aborted = true
            state.paused = false
            defer { state.resumeWaiters = [] }
            return (state.resumeWaiters, state.task)
        }
        for waiter in waiters { waiter.resume() }
        task?.cancel()
    }

    func attach(_ task: Task<Void, Never>) {
        let abortNow = state.withLock { state in
            state.task = task
            return state.aborted
        }
        if abortNow { task.cancel() }
    }

    /// Returns at once unless paused; while paused, waits for `resume()` or `abort()`. Throws
    /// `CancellationError` once aborted.
    func checkpoint() async throws {
        let mustWait = state.withLock { $0.paused && !$0.aborted }
        if mustWait {
            await withCheckedContinuation { continuation in
                let waitNow = state.withLock { state in
                    guard state.paused, !state.aborted else { return false }
                    state.resumeWaiters.append(continuation)
                    return true
                }
                if !waitNow { continuation.resume() }
            }
        }
        if isAborted { throw CancellationError() }
        try Task.checkCancellation()
    }
}
