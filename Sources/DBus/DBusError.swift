/// What can go wrong on D-Bus. Every case has a D-Bus error ``name`` and a human ``message``.
public enum DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An error reply from the peer or the bus, e.g. `org.bluez.Error.Failed` with
    /// `le-connection-abort-by-local`. Also what an exported method handler throws to answer
    /// with a specific D-Bus error.
    case error(name: String, message: String)
    /// No reply arrived within the call's timeout (`org.freedesktop.DBus.Error.NoReply`).
    case timedOut(milliseconds: Int)
    /// The connection is closed or was lost before the reply arrived.
    case disconnected(String)
    /// Arguments, names or signatures rejected before anything was sent.
    case invalidArguments(String)
    /// The connection could not be opened or registered on the bus.
    case connectionFailed(name: String, message: String)

    /// Well-known D-Bus error names.
    public enum Name {
        public static let failed = "org.freedesktop.DBus.Error.Failed"
        public static let noReply = "org.freedesktop.DBus.Error.NoReply"
        public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        /// The start of every error of a failed service activation (`…Spawn.ChildExited`, …).
        public static let spawnPrefix = "org.freedesktop.DBus.Error.Spawn."
        public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        public static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
    }

    /// The D-Bus error name.
    public var name: String {
        switch self {
        case .error(let name, _), .connectionFailed(let name, _): name
        case .timedOut: Name.noReply
        case .disconnected: Name.disconnected
        case .invalidArguments: Name.invalidArgs
        }
    }

    /// The human-readable text (for BlueZ often a machine-readable reason string).
    public var message: String {
        switch self {
        case .error(_, let message), .connectionFailed(_, let message): message
        case .timedOut(let milliseconds): "no reply within \(milliseconds) ms"
        case .disconnected(let message), .invalidArguments(let message): message
        }
    }

    public var description: String {
        "\(name): \(message)"
    }
}
