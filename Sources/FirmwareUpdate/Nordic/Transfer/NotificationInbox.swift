import DFUSupport
import GATT

/// The notifications (or indications) of one characteristic, taken from the transport one at a
/// time when the engine waits for one and none is queued. Every wait is bounded in real time;
/// when the link drops, waits fail with the transport's error.
///
/// Taking a value only for a wait (not as soon as the transport has it) keeps the moment the
/// engine receives it in the engine's own order of operations: the simulator moves an SMP
/// link's clock when its answer is taken (docs/simulated-time.md), so writes sent before the
/// engine waits overlap the device's work as they do on a real link. A transport queues what
/// arrives meanwhile.
package final class NotificationInbox: Sendable {
    /// The one caller waiting for a value.
    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<[UInt8], any Error>
        var deadline: ContinuousClock.Instant
    }

    /// How the watchdog ends a wait whose time is up; `next` says what the wait was for.
    private struct Expired: Error {}

    /// The task that ends a wait once its time is up. One per inbox, asleep until a deadline: a
    /// wait answered in time leaves it asleep, and when it wakes it sleeps on until the deadline
    /// of the wait then under way. So a wait costs no task or timer of its own (an update waits
    /// three times per object); only a wait due before the watchdog wakes starts a new one.
    private struct Watchdog {
        var id: Int
        var task: Task<Void, Never>
        var wakes: ContinuousClock.Instant
    }

    private struct State {
        var buffered: [[UInt8]] = []
        var end: (any Error)?
        var waiter: Waiter?
        var watchdog: Watchdog?
        var nextID = 0
        /// Whether the pump is taking a value from the transport (asked for by a wait).
        var pulling = false

        mutating func takeID() -> Int {
            nextID += 1
            return nextID
        }
    }

    private let state = Locked(State())
    private let pump = Locked<Task<Void, Never>?>(nil)
    /// Asks the pump for one value.
    private let demand: AsyncStream<Void>.Continuation

    /// Takes values from `stream` as waits ask for them, on `executor` (the transport's thread,
    /// where the update runs) when given.
    package init(
        _ stream: AsyncThrowingStream<[UInt8], any Error>, device: String, executor: (any TaskExecutor)? = nil
    ) {
        let (demands, demand) = AsyncStream<Void>.makeStream()
        self.demand = demand
        let task = Task(executorPreference: executor) { [state] in
            var end: any Error = GATTError.disconnected(device: device, reason: "notifications ended")
            var values = stream.makeAsyncIterator()
            do {
                for await _ in demands {
                    guard let value = try await values.next() else { break }
                    Self.deliver(value, to: state)
                }
            } catch {
                end = error
            }
            Self.finish(end, state: state)
        }
        pump.withLock { $0 = task }
    }

    /// Stops listening; pending and later waits fail.
    package func close() {
        pump.withLock { $0?.cancel() }
        demand.finish()
        Self.finish(CancellationError(), state: state)
    }

    /// The next value, waiting at most `timeout` (real time) for it; `what` names it in the
    /// timeout's error.
    package func next(timeout: Duration, waitingFor what: @autoclosure () -> String) async throws -> [UInt8] {
        do {
            return try await next(timeout: timeout)
        } catch is Expired {
            throw GATTError.timeout(operation: what(), seconds: timeout.seconds)
        }
    }

    private func next(timeout: Duration) async throws -> [UInt8] {
        let id = state.withLock { $0.takeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let shared = state
                let immediate: Result<[UInt8], any Error>? = state.withLock { inbox in
                    if !inbox.buffered.isEmpty { return .success(inbox.buffered.removeFirst()) }
                    if let end = inbox.end { return .failure(end) }
                    let deadline = ContinuousClock.now + timeout
                    inbox.waiter = Waiter(id: id, continuation: continuation, deadline: deadline)
                    if !inbox.pulling {
                        inbox.pulling = true
                        demand.yield()
                    }
                    if inbox.watchdog.map({ $0.wakes > deadline }) ?? true {
                        inbox.watchdog?.task.cancel()
                        let watchdogID = inbox.takeID()
                        let task = Task { await Self.watch(watchdogID, until: deadline, state: shared) }
                        inbox.watchdog = Watchdog(id: watchdogID, task: task, wakes: deadline)
                    }
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
                if Task.isCancelled { Self.fail(id, CancellationError(), state: state) }
            }
        } onCancel: {
            Self.fail(id, CancellationError(), state: state)
        }
    }

    /// The watchdog `id`: sleeps until `wakes`, then fails the wait under way if its time is up,
    /// or sleeps on until its deadline; ends when no wait is under way or another watchdog
    /// took over.
    private static func watch(_ id: Int, until wakes: ContinuousClock.Instant, state: Locked<State>) async {
        var wakes = wakes
        while (try? await Task.sleep(until: wakes)) != nil {
            let (expired, next) = state.withLock { state -> (Waiter?, ContinuousClock.Instant?) in
                guard state.watchdog?.id == id else { return (nil, nil) }
                guard let waiter = state.waiter, waiter.deadline > .now else {
                    defer {
                        state.waiter = nil
                        state.watchdog = nil
                    }
                    return (state.waiter, nil)
                }
                state.watchdog?.wakes = waiter.deadline
                return (nil, waiter.deadline)
            }
            expired?.continuation.resume(throwing: Expired())
            guard let next else { return }
            wakes = next
        }
    }

    private static func deliver(_ value: [UInt8], to state: Locked<State>) {
        let waiter = state.withLock { state in
            state.pulling = false
            if state.waiter == nil { state.buffered.append(value) }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.continuation.resume(returning: value)
    }

    private static func fail(_ id: Int, _ error: any Error, state: Locked<State>) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiter, waiter.id == id else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.continuation.resume(throwing: error)
    }

    private static func finish(_ error: any Error, state: Locked<State>) {
        let (waiter, watchdog) = state.withLock { state in
            if state.end == nil { state.end = error }
            defer {
                state.waiter = nil
                state.watchdog = nil
            }
            return (state.waiter, state.watchdog)
        }
        watchdog?.task.cancel()
        waiter?.continuation.resume(throwing: error)
    }
}

extension UpdateSession {
    /// Subscribes to `characteristic` and queues its notifications for the update's task.
    func subscribe(to characteristic: any GATTCharacteristic, device: String) async throws
        -> NotificationInbox
    {
        do {
            let stream = try await characteristic.subscribe(timeout: options.notificationTimeout)
            return NotificationInbox(stream, device: device, executor: central.taskExecutor)
        } catch {
            throw mapped(error, during: .enablingControlPointFailed)
        }
    }
}
