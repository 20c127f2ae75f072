import CDBus
import Synchronization

/// One method call waiting for its reply: the bridge between a libdbus pending call (loop
/// thread) and the awaiting task. The continuation is resumed exactly once: with the reply,
/// an error, or `CancellationError` when the task is cancelled first. A reply that comes before
/// anyone awaits it (a call started with ``DBusConnection/startCall``) is kept until awaited.
final class PendingReply: @unchecked Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Message, any Error>)
        case finished(Result<Message, any Error>)
        case done
    }

    private let state = Mutex(State.idle)
    private let timeoutMilliseconds: Int32
    private let table: PendingCallTable
    /// The libdbus pending call while in flight; touched only on the loop thread.
    private var call: OpaquePointer?
    private var connection: OpaquePointer?

    init(timeoutMilliseconds: Int32, table: PendingCallTable) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.table = table
    }

    /// Stores the continuation, or resumes it at once with a reply that came first. Returns false
    /// when it was resumed here (with that reply, or with `CancellationError` if the call was
    /// cancelled before it started).
    func install(_ continuation: CheckedContinuation<Message, any Error>) -> Bool {
        let early: Result<Message, any Error>? = state.withLock { state in
            switch state {
            case .idle:
                state = .waiting(continuation)
                return nil
            case .finished(let result):
                state = .done
                return result
            case .waiting, .done:
                return .failure(CancellationError())
            }
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// Marks the call cancelled and fails the waiter. Returns true if the caller must then
    /// abandon the libdbus call on the loop thread.
    func cancel() -> Bool {
        let waiter: CheckedContinuation<Message, any Error>? = state.withLock { state in
            defer { state = .done }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        waiter?.resume(throwing: CancellationError())
        return waiter != nil
    }

    /// Loop thread: sends `message` and arranges for the reply to come back here.
    func start(_ message: Message, on connection: OpaquePointer?) {
        guard let connection else {
            finish(.failure(DBusError.disconnected("the D-Bus connection is closed")))
            return
        }
        // a call whose waiter was cancelled before it started is not sent
        guard state.withLock({ if case .done = $0 { false } else { true } }) else { return }
        var call: OpaquePointer?
        let queued = dbus_connection_send_with_reply(connection, message.raw, &call, timeoutMilliseconds) != 0
        guard queued, let call else {
            // libdbus gives no pending call when disconnected or when the message carries
            // descriptors the connection cannot pass (checked earlier).
            finish(.failure(DBusError.disconnected("the D-Bus connection is closed")))
            return
        }
        self.call = call
        self.connection = connection
        table.insert(self)
        if dbus_pending_call_get_completed(call) != 0 {
            completed(call)
            return
        }
        let notify: DBusPendingCallNotifyFunction = { call, data in
            Unmanaged<PendingReply>.fromOpaque(data!).takeUnretainedValue().completed(call!)
        }
        let release: DBusFreeFunction = { data in
            Unmanaged<PendingReply>.fromOpaque(data!).release()
        }
        dbus_pending_call_set_notify(call, notify, Unmanaged.passRetained(self).toOpaque(), release)
    }

    /// Loop thread: gives up on the reply after the waiter was cancelled.
    func abandon() {
        guard let call else { return }
        self.call = nil
        table.remove(self)
        dbus_pending_call_cancel(call)
        dbus_pending_call_unref(call)
    }

    /// Loop thread, once the connection has ended: fails a call libdbus left unanswered (it
    /// does not always complete pending calls when the connection closes).
    func failDisconnected() {
        abandon()
        finish(.failure(DBusError.disconnected("the D-Bus connection was lost before the reply")))
    }

    private func completed(_ call: OpaquePointer) {
        let reply = dbus_pending_call_steal_reply(call).map { Message(taking: $0) }
        self.call = nil
        table.remove(self)
        dbus_pending_call_unref(call)
        guard let reply else {
            finish(.failure(DBusError.disconnected("the D-Bus connection was lost before the reply")))
            return
        }
        guard reply.isError else {
            finish(.success(reply))
            return
        }
        // libdbus synthesises NoReply itself (no sender) on timeout and on disconnection;
        // a NoReply from the bus (e.g. the peer left) is a remote error like any other.
        if reply.errorName == DBusError.Name.noReply && reply.sender == nil, let connection {
            if dbus_connection_get_is_connected(connection) != 0 {
                finish(.failure(DBusError.timedOut(milliseconds: Int(timeoutMilliseconds))))
            } else {
                finish(.failure(DBusError.disconnected("the D-Bus connection was lost before the reply")))
            }
            return
        }
        finish(.failure(reply.asError()))
    }

    private func finish(_ result: Result<Message, any Error>) {
        let waiter: CheckedContinuation<Message, any Error>? = state.withLock { state in
            switch state {
            case .waiting(let continuation):
                state = .done
                return continuation
            case .idle:
                state = .finished(result)
                return nil
            case .finished, .done:
                return nil
            }
        }
        waiter?.resume(with: result)
    }
}

/// The calls in flight on one connection. Touched only on the loop thread.
final class PendingCallTable: @unchecked Sendable {
    private var calls: [ObjectIdentifier: PendingReply] = [:]

    func insert(_ reply: PendingReply) {
        calls[ObjectIdentifier(reply)] = reply
    }

    func remove(_ reply: PendingReply) {
        calls[ObjectIdentifier(reply)] = nil
    }

    /// Fails every call still waiting; called when the connection has ended.
    func failAll() {
        for reply in Array(calls.values) {
            reply.failDisconnected()
        }
    }
}
