/// A signal received through a match rule.
public struct DBusSignal: Sendable {
    /// The unique name of the connection that emitted it (`:1.7`), or the bus itself.
    public var sender: String?
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]

    public init(sender: String?, path: String, interface: String, member: String, arguments: [DBusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}
