import DFUSupport
import GATT

/// The values a device sends on one subscribed characteristic, waiting for the client. Single
/// consumer.
///
/// Taking a value costs no virtual time: the central received it in the connection event it was
/// sent in, which `SimulationWorld.apply` accounts for when the device sends it. So the virtual
/// clock does not depend on when the client's task gets round to reading it.
final class NotificationChannel: @unchecked Sendable {
    private typealias Item = [UInt8]

    private struct State {
        var items: [Item] = []
        var head = 0
        var ending: (any Error)?
        var isFinished = false
        var isCancelled = false
        var waiter: CheckedContinuation<Item?, any Error>?
    }

    private let state = Locked(State())

    /// Whether the client still listens.
    var isOpen: Bool { state.withLock { !$0.isFinished && !$0.isCancelled } }

    func push(_ item: [UInt8]) {
        let waiter: CheckedContinuation<Item?, any Error>? = state.withLock { state in
            guard !state.isFinished, !state.isCancelled else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.items.append(item)
            return nil
        }
        waiter?.resume(returning: item)
    }

    /// Ends the stream after the values already pushed, with `error` (nil: normally).
    func finish(throwing error: (any Error)?) {
        let waiter: CheckedContinuation<Item?, any Error>? = state.withLock { state in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            state.ending = error
            defer { state.waiter = nil }
            return state.waiter
        }
        if let waiter {
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
        }
    }

    /// The next value; nil when the stream ended or the consumer was cancelled.
    func next() async throws -> [UInt8]? {
        enum Immediate {
            case item(Item)
            case end((any Error)?)
            case wait
        }
        let immediate: Immediate = state.withLock { state in
            if state.head < state.items.count {
                let item = state.items[state.head]
                state.head += 1
                if state.head > 64, state.head * 2 > state.items.count {
                    state.items.removeFirst(state.head)
                    state.head = 0
                }
                return .item(item)
            }
            if state.isCancelled { return .end(nil) }
            if state.isFinished {
                defer { state.ending = nil }
                return .end(state.ending)
            }
            return .wait
        }
        let item: Item?
        switch immediate {
        case .item(let ready): item = ready
        case .end(let error?): throw error
        case .end(nil): return nil
        case .wait:
            item = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let resumeNow: Result<Item?, any Error>? = state.withLock { state in
                        if state.head < state.items.count {
                            defer { state.head += 1 }
                            return .success(state.items[state.head])
                        }
                        if state.isCancelled { return .success(nil) }
                        if state.isFinished {
                            defer { state.ending = nil }
                            return state.ending.map { .failure($0) } ?? .success(nil)
                        }
                        state.waiter = continuation
                        return nil
                    }
                    if let resumeNow { continuation.resume(with: resumeNow) }
                }
            } onCancel: {
                let waiter = state.withLock { state in
                    state.isCancelled = true
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume(returning: nil)
            }
        }
        return item
    }

    /// The stream the client iterates; cancelling its iteration unsubscribes.
    func stream() -> AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream(unfolding: { [self] in try await next() })
    }
}
