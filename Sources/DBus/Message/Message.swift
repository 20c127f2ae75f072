import CDBus

/// Owns one reference to a libdbus message. Sent or received messages are read-only, so
/// reading them from any thread is safe.
final class Message: @unchecked Sendable {
    let raw: OpaquePointer

    /// Takes over a reference the caller owns.
    init(taking raw: OpaquePointer) {
        self.raw = raw
    }

    /// Adds a reference of its own.
    init(retaining raw: OpaquePointer) {
        self.raw = dbus_message_ref(raw)
    }

    deinit {
        dbus_message_unref(raw)
    }

    var type: Int32 { dbus_message_get_type(raw) }
    var isError: Bool { type == DBUS_MESSAGE_TYPE_ERROR }
    var path: String? { string(dbus_message_get_path(raw)) }
    var interface: String? { string(dbus_message_get_interface(raw)) }
    var member: String? { string(dbus_message_get_member(raw)) }
    var sender: String? { string(dbus_message_get_sender(raw)) }
    var destination: String? { string(dbus_message_get_destination(raw)) }
    var errorName: String? { string(dbus_message_get_error_name(raw)) }
    var signature: String { string(dbus_message_get_signature(raw)) ?? "" }
    var expectsReply: Bool { dbus_message_get_no_reply(raw) == 0 }

    /// Unmarshals the body. Each call duplicates any file descriptors again.
    func arguments() -> [DBusValue] {
        MessageReader.arguments(of: raw)
    }

    /// The error carried by an error message: its name and first string argument.
    func asError() -> DBusError {
        var text = ""
        var iterator = DBusMessageIter()
        if dbus_message_iter_init(raw, &iterator) != 0,
            dbus_message_iter_get_arg_type(&iterator) == TypeCode.string
        {
            var pointer: UnsafePointer<CChar>?
            withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_basic(&iterator, $0) }
            text = pointer.map { String(cString: $0) } ?? ""
        }
        return .error(name: errorName ?? DBusError.Name.failed, message: text)
    }

    private func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    // MARK: Building

    static func methodCall(
        destination: String?, path: String, interface: String?, member: String, arguments: [DBusValue]
    ) throws(DBusError) -> Message {
        if let destination { try DBusNames.validateBusName(destination) }
        try DBusNames.validateObjectPath(path)
        if let interface { try DBusNames.validateInterface(interface) }
        try DBusNames.validateMember(member)
        guard
            let raw = withOptionalCString(
                destination,
                { destination in
                    withOptionalCString(interface) { interface in
                        dbus_message_new_method_call(destination, path, interface, member)
                    }
                })
        else { throw .invalidArguments("libdbus could not create a call to \(member)") }
        return try filled(Message(taking: raw), arguments)
    }

    static func signal(path: String, interface: String, member: String, arguments: [DBusValue])
        throws(DBusError)
        -> Message
    {
        try DBusNames.validateObjectPath(path)
        try DBusNames.validateInterface(interface)
        try DBusNames.validateMember(member)
        guard let raw = dbus_message_new_signal(path, interface, member) else {
            throw .invalidArguments("libdbus could not create the signal \(member)")
        }
        return try filled(Message(taking: raw), arguments)
    }

    static func methodReturn(to call: Message, arguments: [DBusValue]) throws(DBusError) -> Message {
        guard let raw = dbus_message_new_method_return(call.raw) else {
            throw .invalidArguments("libdbus could not create a method return")
        }
        return try filled(Message(taking: raw), arguments)
    }

    /// An error reply; an invalid error name becomes `org.freedesktop.DBus.Error.Failed`.
    static func errorReply(to call: Message, name: String, message: String) -> Message? {
        let validName = (try? DBusNames.validateErrorName(name)) != nil ? name : DBusError.Name.failed
        let text = message.utf8.contains(0) ? String(message.map { $0 == "\0" ? " " : $0 }) : message
        return dbus_message_new_error(call.raw, validName, text).map { Message(taking: $0) }
    }

    private static func filled(_ message: Message, _ arguments: [DBusValue]) throws(DBusError) -> Message {
        for argument in arguments {
            try argument.validate()
        }
        try MessageWriter.append(arguments, to: message.raw)
        return message
    }
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    if let string {
        string.withCString { body($0) }
    } else {
        body(nil)
    }
}
