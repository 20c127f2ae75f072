import DFUSupport
import GATT
import Synchronization

/// Whether a link is up, and who must hear when it goes down: notification streams, pending
/// writes, `waitForDisconnection` callers. Going down happens once; later reports are ignored.
final class LinkState: Sendable {
    private struct State {
        var downReason: String?
        var nextToken = 0
        var observers: [Int: @Sendable (String) -> Void] = [:]
    }
    private let state = Mutex(State())

    var isUp: Bool { state.withLock { $0.downReason == nil } }
    var downReason: String? { state.withLock { $0.downReason } }

    /// Calls `observer` with the reason once the link goes down (at once when it already is).
    /// Returns a token for `removeObserver`.
    @discardableResult
    func onDown(_ observer: @escaping @Sendable (String) -> Void) -> Int {
        let (token, reason): (Int, String?) = state.withLock { state in
            if let reason = state.downReason { return (-1, reason) }
            state.nextToken += 1
            state.observers[state.nextToken] = observer
            return (state.nextToken, nil)
        }
        if let reason { observer(reason) }
        return token
    }

    func removeObserver(_ token: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: token) }
    }

    /// Marks the link down and tells every observer.
    func markDown(_ reason: String) {
        let observers: [@Sendable (String) -> Void] = state.withLock { state in
            guard state.downReason == nil else { return [] }
            state.downReason = reason
            defer { state.observers = [:] }
            return Array(state.observers.values)
        }
        for observer in observers { observer(reason) }
    }

    /// Returns once the link is down; throws `GATTError.timeout` when `limit` passes first.
    func waitUntilDown(_ limit: Duration, operation: String) async throws {
        if !isUp { return }
        let box = Mutex<(token: Int?, continuation: CheckedContinuation<Void, Never>?)>((nil, nil))
        try await withRealTimeout(limit, waitingFor: operation) {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    box.withLock { $0.continuation = continuation }
                    let token = self.onDown { _ in
                        box.withLock { $0.continuation.take() }?.resume()
                    }
                    box.withLock { $0.token = token }
                    // a cancellation that came before the continuation was stored
                    if Task.isCancelled { box.withLock { $0.continuation.take() }?.resume() }
                }
            } onCancel: {
                let (token, continuation) = box.withLock { ($0.token, $0.continuation.take()) }
                if let token { self.removeObserver(token) }
                continuation?.resume()
            }
        }
    }
}
