import DFUSupport
import GATT

/// The values a device sends on one subscribed characteristic, waiting for the client. Single
/// consumer.
///
/// A value pushed with no event costs no virtual time when taken: the central received it in the
/// connection event it was sent in, which `SimulationWorld.apply` accounted for when the device
/// sent it. A value pushed with its event (an SMP answer) moves the central's clock to that event
/// when the client takes it (`received`), since the client reacts to it only then; the engine
/// takes one only while it waits for one, so the clock still follows the client's operations.
final class NotificationChannel: @unchecked Sendable {
    private typealias Item = [UInt8]

    /// A value and, when taking it moves the clock, the connection event it was sent in.
    private struct Pushed {
        var value: Item
        var event: Int64?
    }

    private struct State {
        var items: [Pushed] = []
        var head = 0
        var ending: (any Error)?
        var isFinished = false
        var isCancelled = false
        var waiter: CheckedContinuation<Item?, any Error>?
    }

    private let state = Locked(State())
    /// Moves the central's clock to the event of a value taken later than it was pushed.
    private let received: (@Sendable (Int64) -> Void)?

    init(received: (@Sendable (Int64) -> Void)? = nil) { self.received = received }

    /// Whether the client still listens.
    var isOpen: Bool { state.withLock { !$0.isFinished && !$0.isCancelled } }

    /// Queues `item`, sent in connection `event` when taking it is to move the clock; true when
    /// a waiting client took it at once (the caller then accounts for the event).
    @discardableResult
    func push(_ item: [UInt8], event: Int64? = nil) -> Bool {
        let waiter: CheckedContinuation<Item?, any Error>? = state.withLock { state in
            guard !state.isFinished, !state.isCancelled else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.items.append(Pushed(value: item, event: event))
            return nil
        }
        waiter?.resume(returning: item)
        return waiter != nil
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
            case item(Pushed)
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
        case .item(let ready):
            if let event = ready.event { received?(event) }
            item = ready.value
        case .end(let error?): throw error
        case .end(nil): return nil
        case .wait:
            item = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let resumeNow: Result<Pushed?, any Error>? = state.withLock { state in
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
                    guard let resumeNow else { return }
                    // the world's lock is taken after the channel's is released, never inside it
                    if case .success(let pushed?) = resumeNow, let event = pushed.event { received?(event) }
                    continuation.resume(with: resumeNow.map { $0?.value })
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
