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
    /// (groups of one or two characters between colons) without being one (`ZZ:00`).
    public static func problem(with text: String) -> String? {
        if text.trimmingCharacters(in: " \t").isEmpty { return "a device name or address must not be empty" }
        guard BluetoothAddress(text) == nil else { return nil }
        let groups = text.split(separator: ":", omittingEmptySubsequences: false)
        if groups.count > 1, groups.allSatisfy({ $0.count <= 2 }) {
            return "'\(text)' is not a Bluetooth address (six pairs of hex digits, AA:BB:CC:DD:EE:FF)"
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return text
    }
}
