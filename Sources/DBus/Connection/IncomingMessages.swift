import CDBus

/// Receives every message on the loop thread: signals go to the ``SignalRouter``, method calls
/// to exported objects (through a fallback handler on `/`).
final class IncomingMessages: Sendable {
    let router: SignalRouter
    let objects: ObjectRegistry
    let loop: EventLoop
    /// Handlers of methods marked ``DBusMethod/inOrder``, run one after the other in the order
    /// the calls arrived (e.g. bluetoothd forwarding write commands to a GATT application).
    private let orderedHandlers: AsyncStream<@Sendable () async -> Void>.Continuation

    init(router: SignalRouter, objects: ObjectRegistry, loop: EventLoop) {
        self.router = router
        self.objects = objects
        self.loop = loop
        let (jobs, handlers) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        orderedHandlers = handlers
        Task {
            for await job in jobs { await job() }
        }
    }

    deinit {
        orderedHandlers.finish()
    }

    /// Loop thread, before the loop runs: installs the filter and the fallback object handler.
    /// libdbus keeps a reference to `self` for each and releases it when the connection is freed.
    func install(on connection: OpaquePointer) {
        let filter: DBusHandleMessageFunction = { _, message, data in
            let incoming = Unmanaged<IncomingMessages>.fromOpaque(data!).takeUnretainedValue()
            if dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_SIGNAL {
                incoming.router.deliver(Message(retaining: message!))
            }
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
        let release: DBusFreeFunction = { data in
            Unmanaged<IncomingMessages>.fromOpaque(data!).release()
        }
        dbus_connection_add_filter(connection, filter, Unmanaged.passRetained(self).toOpaque(), release)

        var vtable = DBusObjectPathVTable()
        vtable.message_function = { connection, message, data in
            guard dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_METHOD_CALL else {
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            }
            let incoming = Unmanaged<IncomingMessages>.fromOpaque(data!).takeUnretainedValue()
            incoming.handleMethodCall(Message(retaining: message!), on: connection!)
            return DBUS_HANDLER_RESULT_HANDLED
        }
        vtable.unregister_function = { _, data in
            Unmanaged<IncomingMessages>.fromOpaque(data!).release()
        }
        let data = Unmanaged.passRetained(self).toOpaque()
        if dbus_connection_register_fallback(connection, "/", &vtable, data) == 0 {
            Unmanaged<IncomingMessages>.fromOpaque(data).release()
        }
    }

    /// Loop thread: answers the standard interfaces at once and runs exported methods as tasks.
    private func handleMethodCall(_ call: Message, on connection: OpaquePointer) {
        guard let path = call.path, let member = call.member else { return }
        let interface = call.interface
        let standard = StandardInterfaces(objects: objects, path: path)
        do throws(DBusError) {
            if let answer = try standard.answer(interface: interface, member: member, call: call) {
                switch answer {
                case .reply(let values):
                    send(reply(to: call, with: .success(values)), answering: call, on: connection)
                case .setProperty(let property, let interfaceName, let value):
                    runSet(property, interface: interfaceName, path: path, value: value, call: call)
                }
                return
            }
            let method = try findMethod(path: path, interface: interface, member: member)
            guard call.signature == method.inSignature else {
                throw .error(
                    name: DBusError.Name.invalidArgs,
                    message: "\(member) takes '\(method.inSignature)', got '\(call.signature)'")
            }
            if let immediate = method.immediateHandler {
                let invocation = Self.invocation(of: method, call, path: path, interface: interface)
                let result = Self.checked(Result { try immediate(invocation) }, method)
                send(reply(to: call, with: result), answering: call, on: connection)
            } else {
                runMethod(method, call: call, path: path, interface: interface)
            }
        } catch {
            send(reply(to: call, with: .failure(error)), answering: call, on: connection)
        }
    }

    private func findMethod(path: String, interface: String?, member: String) throws(DBusError) -> DBusMethod
    {
        guard let interfaces = objects.interfaces(at: path) else {
            throw .error(name: DBusError.Name.unknownObject, message: "no object at \(path)")
        }
        let candidates: [DBusInterface]
        if let interface {
            guard let found = interfaces.first(where: { $0.name == interface }) else {
                throw .error(
                    name: DBusError.Name.unknownInterface, message: "\(path) has no interface \(interface)")
            }
            candidates = [found]
        } else {
            candidates = interfaces
        }
        for candidate in candidates {
            if let method = candidate.methods.first(where: { $0.name == member }) {
                return method
            }
        }
        throw .error(name: DBusError.Name.unknownMethod, message: "\(path) has no method \(member)")
    }

    private func runMethod(_ method: DBusMethod, call: Message, path: String, interface: String?) {
        let loop = self.loop
        let job: @Sendable () async -> Void = {
            // Unmarshalled here rather than on the loop thread, which has other messages to move.
            let invocation = Self.invocation(of: method, call, path: path, interface: interface)
            let result: Result<[DBusValue], any Error>
            do {
                result = .success(try await method.handler(invocation))
            } catch {
                result = .failure(error)
            }
            let message = reply(to: call, with: Self.checked(result, method))
            loop.enqueue { connection in
                if let connection { send(message, answering: call, on: connection) }
            }
        }
        if method.inOrder {
            orderedHandlers.yield(job)
        } else {
            Task { await job() }
        }
    }

    private func runSet(
        _ property: DBusProperty, interface: String, path: String, value: DBusValue, call: Message
    ) {
        let objects = self.objects
        let loop = self.loop
        Task {
            var result: Result<[DBusValue], DBusError> = .success([])
            do {
                try await property.onSet?(value)
                if try objects.setValue(value, of: property.name, interface: interface, at: path) {
                    let changed = try Message.signal(
                        path: path, interface: StandardInterfaces.properties, member: "PropertiesChanged",
                        arguments: [
                            .string(interface), .propertyDictionary([(property.name, value)]),
                            .stringArray([]),
                        ])
                    loop.enqueue { connection in
                        if let connection { dbus_connection_send(connection, changed.raw, nil) }
                    }
                }
            } catch {
                result = .failure(Self.dbusError(error))
            }
            let message = reply(to: call, with: result)
            loop.enqueue { connection in
                if let connection { send(message, answering: call, on: connection) }
            }
        }
    }

    /// What a handler of `method` gets for `call`, its arguments unmarshalled.
    private static func invocation(of method: DBusMethod, _ call: Message, path: String, interface: String?)
        -> DBusMethodCall
    {
        DBusMethodCall(
            sender: call.sender, path: path, interface: interface, member: method.name,
            arguments: call.arguments())
    }

    /// A handler's result as the reply carries it: any error as a D-Bus error, and values of
    /// another signature than the method declares as an error.
    private static func checked(_ result: Result<[DBusValue], any Error>, _ method: DBusMethod)
        -> Result<[DBusValue], DBusError>
    {
        switch result {
        case .failure(let error):
            return .failure(dbusError(error))
        case .success(let values) where values.dbusSignature != method.outSignature:
            return .failure(
                .error(
                    name: DBusError.Name.failed,
                    message:
                        "\(method.name) produced '\(values.dbusSignature)', declared '\(method.outSignature)'"
                ))
        case .success(let values):
            return .success(values)
        }
    }

    private static func dbusError(_ error: any Error) -> DBusError {
        if let error = error as? DBusError { return error }
        return .error(name: DBusError.Name.failed, message: String(describing: error))
    }
}

/// The reply to `call` (nil when the caller asked for none).
private func reply(to call: Message, with result: Result<[DBusValue], DBusError>) -> Message? {
    guard call.expectsReply else { return nil }
    switch result {
    case .success(let values):
        do {
            return try Message.methodReturn(to: call, arguments: values)
        } catch {
            return Message.errorReply(to: call, name: error.name, message: error.message)
        }
    case .failure(let error):
        return Message.errorReply(to: call, name: error.name, message: error.message)
    }
}

/// Sends a reply; one carrying descriptors the connection cannot pass (e.g. TCP) becomes an
/// error reply, since libdbus would drop it silently and leave the caller to time out.
private func send(_ message: Message?, answering call: Message, on connection: OpaquePointer) {
    guard let message else { return }
    if dbus_message_contains_unix_fds(message.raw) != 0
        && dbus_connection_can_send_type(connection, TypeCode.unixFD) == 0
    {
        let refusal = Message.errorReply(
            to: call, name: DBusError.Name.failed,
            message: "the reply carries UNIX file descriptors, which this connection cannot pass")
        if let refusal { dbus_connection_send(connection, refusal.raw, nil) }
        return
    }
    dbus_connection_send(connection, message.raw, nil)
}
