/// A D-Bus match rule for signals (`type='signal'` plus the fields that are set).
///
/// The same rule is sent to the bus (AddMatch) and applied locally to route signals to the
/// stream that asked for them.
public struct DBusMatchRule: Sendable, Hashable {
    /// A unique name (`:1.42`) or a well-known name (`org.bluez`), matched against its owner.
    public var sender: String?
    public var interface: String?
    public var member: String?
    /// An exact object path. Cannot be combined with ``pathNamespace``.
    public var path: String?
    /// An object path and everything below it.
    public var pathNamespace: String?
    public var destination: String?
    /// `argN='value'`: the N-th argument is this string.
    public var arguments: [Int: String]
    /// `argNpath='/p/'`: the N-th argument (string or object path) equals the value, or one of
    /// them ends in `/` and is a prefix of the other.
    public var argumentPaths: [Int: String]

    public init(
        sender: String? = nil, interface: String? = nil, member: String? = nil, path: String? = nil,
        pathNamespace: String? = nil, destination: String? = nil, arguments: [Int: String] = [:],
        argumentPaths: [Int: String] = [:]
    ) {
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.destination = destination
        self.arguments = arguments
        self.argumentPaths = argumentPaths
    }

    /// The rule as the bus expects it, e.g. `type='signal',sender='org.bluez',member='X'`.
    public var ruleString: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            // Inside quotes only the apostrophe needs care: close, escape it, reopen.
            parts.append(
                "\(key)='\(value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''"))'"
            )
        }
        add("sender", sender)
        add("interface", interface)
        add("member", member)
        add("path", path)
        add("path_namespace", pathNamespace)
        add("destination", destination)
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) {
            add("arg\(index)", value)
        }
        for (index, value) in argumentPaths.sorted(by: { $0.key < $1.key }) {
            add("arg\(index)path", value)
        }
        return parts.joined(separator: ",")
    }

    /// Checks the rule's own consistency before it is sent.
    func validate() throws(DBusError) {
        if path != nil && pathNamespace != nil {
            throw .invalidArguments("a match rule cannot have both path and path_namespace")
        }
        if let sender { try DBusNames.validateBusName(sender) }
        if let interface { try DBusNames.validateInterface(interface) }
        if let member { try DBusNames.validateMember(member) }
        if let path { try DBusNames.validateObjectPath(path) }
        if let pathNamespace { try DBusNames.validateObjectPath(pathNamespace) }
        if let destination { try DBusNames.validateBusName(destination) }
        for index in Array(arguments.keys) + Array(argumentPaths.keys) where !(0...63).contains(index) {
            throw .invalidArguments("match rule argument index \(index) is outside 0...63")
        }
        for value in Array(arguments.values) + Array(argumentPaths.values) where value.utf8.contains(0) {
            throw .invalidArguments("match rule values cannot contain NUL characters")
        }
    }

    /// Whether the header fields match; `senderMatches` resolves well-known names.
    func matchesHeader(_ signal: SignalHeader, senderMatches: (String) -> Bool) -> Bool {
        if let sender, !senderMatches(sender) { return false }
        if let interface, interface != signal.interface { return false }
        if let member, member != signal.member { return false }
        if let path, path != signal.path { return false }
        if let pathNamespace {
            let inside =
                pathNamespace == "/" || signal.path == pathNamespace
                || signal.path.hasPrefix(pathNamespace + "/")
            if !inside { return false }
        }
        if let destination, destination != signal.destination { return false }
        return true
    }

    var needsArguments: Bool {
        !arguments.isEmpty || !argumentPaths.isEmpty
    }

    func matchesArguments(_ values: [DBusValue]) -> Bool {
        for (index, expected) in arguments {
            guard index < values.count, case .string(let actual) = values[index], actual == expected else {
                return false
            }
        }
        for (index, expected) in argumentPaths {
            guard index < values.count else { return false }
            let actual: String
            switch values[index] {
            case .string(let text), .objectPath(let text): actual = text
            default: return false
            }
            let related =
                actual == expected || (expected.hasSuffix("/") && actual.hasPrefix(expected))
                || (actual.hasSuffix("/") && expected.hasPrefix(actual))
            if !related { return false }
        }
        return true
    }
}

/// The header fields of a received signal.
struct SignalHeader {
    var sender: String?
    var destination: String?
    var path: String
    var interface: String
    var member: String
}
