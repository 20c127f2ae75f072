/// How a user names a device: by its Bluetooth address or by its advertised name.
public enum DeviceIdentifier: Hashable, Sendable, CustomStringConvertible {
    case address(BluetoothAddress)
    case name(String)

    /// An address when `text` has the `XX:XX:XX:XX:XX:XX` form (either case), else a name; for
    /// text checked already (`parse` checks and says why text names no device).
    public init(_ text: String) {
        self = BluetoothAddress(text).map(Self.address) ?? .name(text)
    }

    /// `text` as a device, or an error that says why it cannot name one.
    public static func parse(_ text: String) throws(Invalid) -> DeviceIdentifier {
        if let problem = problem(with: text) { throw Invalid(text: text, problem: problem) }
        return DeviceIdentifier(text)
    }

    /// Text that names no device, and why.
    public struct Invalid: Error, CustomStringConvertible {
        public let text: String
        public let problem: String
        public var description: String { problem }
    }

    /// The address as BlueZ prints it (upper case), or the name.
    public var description: String {
        switch self {
        case .address(let address): address.description
        case .name(let name): name
        }
    }

    /// Why `text` cannot name a device, nil when it can: it is empty, or shaped like an address
    /// (groups of one or two characters between colons) without being one (`ZZ:00`), or an
    /// address written as BlueZ never writes one: with dashes (as Windows prints it) or with
    /// spaces around it. Taken as a name, such text would be looked for in vain until the scan
    /// gives up, as no device advertises it.
    public static func problem(with text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: " \t")
        if trimmed.isEmpty { return "a device name or address must not be empty" }
        guard BluetoothAddress(text) == nil else { return nil }
        if BluetoothAddress(String(trimmed)) != nil {
            return "'\(text)' has spaces around an address; write it without them (\(trimmed))"
        }
        if let colons = BluetoothAddress(text.replacingDashes()) {
            return "'\(text)' is an address written with dashes; write it with colons (\(colons))"
        }
        let groups = text.split(separator: ":", omittingEmptySubsequences: false)
        if groups.count > 1, groups.allSatisfy({ $0.count <= 2 }) {
            return "'\(text)' is not a Bluetooth address (six pairs of hex digits, AA:BB:CC:DD:EE:FF)"
        }
        return nil
    }
}

extension String {
    /// `AA-BB-CC-DD-EE-FF` as `AA:BB:CC:DD:EE:FF`: each dash a colon.
    fileprivate func replacingDashes() -> String { String(map { $0 == "-" ? ":" : $0 }) }

    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return text
    }
}
