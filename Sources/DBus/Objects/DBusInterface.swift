/// A method call received by an exported object.
public struct DBusMethodCall: Sendable {
    /// The caller's unique name.
    public var sender: String?
    public var path: String
    public var interface: String?
    public var member: String
    public var arguments: [DBusValue]

    public init(sender: String?, path: String, interface: String?, member: String, arguments: [DBusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

/// A method of an exported interface.
public struct DBusMethod: Sendable {
    public typealias Handler = @Sendable (DBusMethodCall) async throws -> [DBusValue]
    public typealias ImmediateHandler = @Sendable (DBusMethodCall) throws -> [DBusValue]

    public var name: String
    /// The argument signature callers must use (checked before `handler` runs).
    public var inSignature: String
    /// The reply signature `handler` must return (checked before the reply is sent).
    public var outSignature: String
    /// Returns the reply values, or throws: a ``DBusError/error(name:message:)`` becomes that
    /// D-Bus error; any other error becomes `org.freedesktop.DBus.Error.Failed`.
    public var handler: Handler
    /// Whether calls of this method are handled one after the other, in the order they arrived,
    /// each after the previous one's handler returned (all such methods of a connection share
    /// one queue). Otherwise handlers run concurrently, in no particular order.
    public var inOrder: Bool
    /// Set by ``immediate(_:in:out:_:)``: the handler that runs on the connection's own
    /// thread as the call is dispatched.
    public var immediateHandler: ImmediateHandler?

    public init(
        _ name: String, in inSignature: String = "", out outSignature: String = "", inOrder: Bool = false,
        handler: @escaping Handler
    ) {
        self.name = name
        self.inSignature = inSignature
        self.outSignature = outSignature
        self.inOrder = inOrder
        self.handler = handler
    }

    /// A method whose handler runs on the connection's own thread as the call is dispatched,
    /// before any later message is looked at: calls are handled in the order they arrived and
    /// each reply goes out at once (e.g. a GATT application answering bluetoothd, which must not
    /// keep a write waiting). The handler must return at once and must not wait on this
    /// connection.
    public static func immediate(
        _ name: String, in inSignature: String = "", out outSignature: String = "",
        _ handler: @escaping ImmediateHandler
    ) -> DBusMethod {
        var method = DBusMethod(
            name, in: inSignature, out: outSignature, handler: { call in try handler(call) })
        method.immediateHandler = handler
        return method
    }
}

/// A property of an exported interface. Its value lives in the connection's object registry;
/// change it with ``DBusConnection/setProperty(_:interface:path:to:emitChanged:)``.
public struct DBusProperty: Sendable {
    public enum Access: String, Sendable {
        case read
        case readWrite = "readwrite"
    }

    public typealias SetHandler = @Sendable (DBusValue) async throws -> Void

    public var name: String
    /// The initial value; its signature is the property's type.
    public var value: DBusValue
    public var access: Access
    /// Runs for a remote `Set` before the new value is stored; throw to refuse it.
    public var onSet: SetHandler?

    public init(_ name: String, value: DBusValue, access: Access = .read, onSet: SetHandler? = nil) {
        self.name = name
        self.value = value
        self.access = access
        self.onSet = onSet
    }
}

/// A signal an interface declares (for introspection).
public struct DBusSignalDeclaration: Sendable {
    public var name: String
    public var signature: String

    public init(_ name: String, signature: String = "") {
        self.name = name
        self.signature = signature
    }
}

/// One interface of an exported object.
public struct DBusInterface: Sendable {
    public var name: String
    public var methods: [DBusMethod]
    public var properties: [DBusProperty]
    public var signals: [DBusSignalDeclaration]

    public init(
        _ name: String, methods: [DBusMethod] = [], properties: [DBusProperty] = [],
        signals: [DBusSignalDeclaration] = []
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    func validate() throws(DBusError) {
        try DBusNames.validateInterface(name)
        for method in methods {
            try DBusNames.validateMember(method.name)
            try DBusNames.validateSignature(method.inSignature)
            try DBusNames.validateSignature(method.outSignature)
        }
        for property in properties {
            try DBusNames.validateMember(property.name)
            try property.value.validate()
        }
        for signal in signals {
            try DBusNames.validateMember(signal.name)
            try DBusNames.validateSignature(signal.signature)
        }
    }

    /// The readable properties as an `a{sv}`.
    var propertyDictionary: DBusValue {
        .propertyDictionary(properties.map { ($0.name, $0.value) })
    }
}
