/// A Bluetooth UUID, kept in its canonical 128-bit lower-case text form.
///
/// 16- and 32-bit UUIDs are expanded over the Bluetooth base UUID
/// `0000xxxx-0000-1000-8000-00805f9b34fb`, so `BluetoothUUID("FE59")` equals
/// `BluetoothUUID("0000fe59-0000-1000-8000-00805F9B34FB")`.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// The canonical form: 36 characters, lower case, with dashes.
    public let uuidString: String

    private static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    /// Parses a 4-, 8- or 32-hex-digit UUID, with or without dashes; `nil` if it is not one.
    public init?(_ text: String) {
        let hex = text.lowercased().filter { $0 != "-" }
        guard hex.allSatisfy(\.isHexDigit), hex.allSatisfy(\.isASCII) else { return nil }
        switch hex.count {
        case 4: uuidString = "0000" + hex + Self.baseSuffix
        case 8: uuidString = hex + Self.baseSuffix
        case 32:
            let h = Array(hex)
            uuidString = [h[0..<8], h[8..<12], h[12..<16], h[16..<20], h[20..<32]]
                .map { String($0) }.joined(separator: "-")
        default: return nil
        }
    }

    /// A 16-bit UUID assigned by the Bluetooth SIG.
    public init(short value: UInt16) {
        let hex = String(value, radix: 16)
        uuidString = String(repeating: "0", count: 8 - hex.count) + hex + Self.baseSuffix
    }

    /// The 16-bit value when this UUID lies on the Bluetooth base, else `nil`.
    public var shortValue: UInt16? {
        guard uuidString.hasPrefix("0000"), uuidString.hasSuffix(Self.baseSuffix) else { return nil }
        let start = uuidString.index(uuidString.startIndex, offsetBy: 4)
        let end = uuidString.index(start, offsetBy: 4)
        return UInt16(uuidString[start..<end], radix: 16)
    }

    public var description: String { uuidString }
}
