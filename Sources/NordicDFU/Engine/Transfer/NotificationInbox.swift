import DFUSupport
import GATT

/// The notifications (or indications) of one characteristic, queued as they arrive until the
/// engine asks for the next one. Every wait is bounded in real time; when the link drops, waits
/// fail with the transport's error.
final class NotificationInbox: Sendable {
    /// The one caller waiting for a value, and the timer that ends its wait.
    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<[UInt8], any Error>
        var timer: Task<Void, Never>

        func resume(with result: Result<[UInt8], any Error>) {
            timer.cancel()
            continuation.resume(with: result)
        }
    }

    private struct State {
        var buffered: [[UInt8]] = []
        var end: (any Error)?
        var waiter: Waiter?
        var nextID = 0
    }

    private let state = Locked(State())
    private let pump = Locked<Task<Void, Never>?>(nil)

    /// Starts queueing what `stream` delivers.
    init(_ stream: AsyncThrowingStream<[UInt8], any Error>, device: String) {
        let task = Task { [state] in
            var end: any Error = GATTError.disconnected(device: device, reason: "notifications ended")
            do {
                for try await value in stream { Self.deliver(value, to: state) }
            } catch {
                end = error
            }
            Self.finish(end, state: state)
        }
        pump.withLock { $0 = task }
    }

    /// Stops listening; pending and later waits fail.
    func close() {
        pump.withLock { $0?.cancel() }
        Self.finish(CancellationError(), state: state)
    }

    /// The next value, waiting at most `timeout` (real time) for it.
    func next(timeout: Duration, waitingFor what: String) async throws -> [UInt8] {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let shared = state
                let immediate: Result<[UInt8], any Error>? = state.withLock { inbox in
                    if !inbox.buffered.isEmpty { return .success(inbox.buffered.removeFirst()) }
                    if let end = inbox.end { return .failure(end) }
                    let timer = Task {
                        guard (try? await Task.sleep(for: timeout)) != nil else { return }
                        Self.fail(
                            id, GATTError.timeout(operation: what, seconds: timeout.seconds), state: shared)
                    }
                    inbox.waiter = Waiter(id: id, continuation: continuation, timer: timer)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
                if Task.isCancelled { Self.fail(id, CancellationError(), state: state) }
            }
        } onCancel: {
            Self.fail(id, CancellationError(), state: state)
        }
    }

    private static func deliver(_ value: [UInt8], to state: Locked<State>) {
        let waiter = state.withLock { state in
            if state.waiter == nil { state.buffered.append(value) }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: .success(value))
    }

    private static func fail(_ id: Int, _ error: any Error, state: Locked<State>) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiter, waiter.id == id else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(with: .failure(error))
    }

    private static func finish(_ error: any Error, state: Locked<State>) {
        let waiter = state.withLock { state in
            if state.end == nil { state.end = error }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: .failure(error))
    }
}
