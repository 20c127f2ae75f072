import CDBus

extension DBusConnection {
    /// Calls a method and returns the reply's arguments.
    ///
    /// Throws ``DBusError/error(name:message:)`` for an error reply,
    /// ``DBusError/timedOut(milliseconds:)`` when no reply came within `timeout`,
    /// ``DBusError/disconnected(_:)`` when the connection ends first, and `CancellationError`
    /// when the awaiting task is cancelled (the call is then abandoned).
    public func call(
        destination: String?, path: String, interface: String?, member: String, arguments: [DBusValue] = [],
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws -> [DBusValue] {
        let message = try Message.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        try checkDescriptors(arguments)
        return try await send(message, timeout: timeout).arguments()
    }

    /// Sends a method call without waiting for (or wanting) a reply.
    public func send(
        destination: String?, path: String, interface: String?, member: String, arguments: [DBusValue] = []
    ) throws(DBusError) {
        let message = try Message.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        try checkDescriptors(arguments)
        dbus_message_set_no_reply(message.raw, 1)
        enqueueSend(message)
    }

    /// Emits a signal from `path`, to everyone whose match rules select it or to `destination`.
    public func emitSignal(
        path: String, interface: String, member: String, arguments: [DBusValue] = [],
        destination: String? = nil
    ) throws(DBusError) {
        let message = try Message.signal(
            path: path, interface: interface, member: member, arguments: arguments)
        if let destination {
            try DBusNames.validateBusName(destination)
            dbus_message_set_destination(message.raw, destination)
        }
        try checkDescriptors(arguments)
        enqueueSend(message)
    }

    /// Sends a method call now and returns at once; its reply is awaited later, through the
    /// returned ``DBusPendingCall``. Calls started one after the other leave in that order, so a
    /// caller can keep several in flight (a window of writes) and collect the replies afterwards.
    public func startCall(
        destination: String?, path: String, interface: String?, member: String, arguments: [DBusValue] = [],
        timeout: Duration = DBusConnection.defaultTimeout
    ) throws(DBusError) -> DBusPendingCall {
        let message = try Message.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        try checkDescriptors(arguments)
        let pending = PendingReply(timeoutMilliseconds: Self.milliseconds(timeout), table: pendingCalls)
        loop.enqueue { connection in pending.start(message, on: connection) }
        return DBusPendingCall(pending: pending, loop: loop)
    }

    /// Sends a complete message and awaits its reply message.
    func send(_ message: Message, timeout: Duration) async throws -> Message {
        let pending = PendingReply(timeoutMilliseconds: Self.milliseconds(timeout), table: pendingCalls)
        let loop = self.loop
        return try await pending.reply(on: loop) {
            loop.enqueue { connection in pending.start(message, on: connection) }
        }
    }

    func enqueueSend(_ message: Message) {
        loop.enqueue { connection in
            if let connection {
                dbus_connection_send(connection, message.raw, nil)
            }
        }
    }

    private func checkDescriptors(_ arguments: [DBusValue]) throws(DBusError) {
        if !canPassFileDescriptors && arguments.contains(where: \.containsUnixFD) {
            throw .invalidArguments("this D-Bus connection cannot pass UNIX file descriptors")
        }
    }

    /// A libdbus timeout: at least 1 ms, below its "infinite" value.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds.multipliedReportingOverflow(by: 1000)
        guard !total.overflow else { return seconds < 0 ? 1 : Int32.max - 1 }
        let milliseconds = total.partialValue + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(1, min(milliseconds, Int64(Int32.max - 1))))
    }
}

extension DBusValue {
    var containsUnixFD: Bool {
        switch self {
        case .unixFD: true
        case .array(_, let values), .structure(let values): values.contains(where: \.containsUnixFD)
        case .dictionary(_, _, let entries):
            entries.contains { $0.key.containsUnixFD || $0.value.containsUnixFD }
        case .variant(let inner): inner.containsUnixFD
        default: false
        }
    }
}
