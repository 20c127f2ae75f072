/// Encoding: the deterministic form of RFC 8949 §4.2.1 — every head in its shortest form, every
/// length definite, map keys sorted by their encoded bytes.
extension CBORValue {
    /// The item's CBOR encoding.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    /// Appends the item's CBOR encoding to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        switch self {
        case .unsigned(let value):
            Self.appendHead(major: 0, argument: value, to: &bytes)
        case .negative(let value):
            Self.appendHead(major: 1, argument: value, to: &bytes)
        case .bytes(let data):
            Self.appendHead(major: 2, argument: UInt64(data.count), to: &bytes)
            bytes += data
        case .text(let text):
            let utf8 = Array(text.utf8)
            Self.appendHead(major: 3, argument: UInt64(utf8.count), to: &bytes)
            bytes += utf8
        case .array(let items):
            Self.appendHead(major: 4, argument: UInt64(items.count), to: &bytes)
            for item in items { item.encode(into: &bytes) }
        case .map(let entries):
            Self.appendHead(major: 5, argument: UInt64(entries.count), to: &bytes)
            let sorted = entries.map { (key: $0.key.encoded, value: $0.value) }
                .sorted { $0.key.lexicographicallyPrecedes($1.key) }
            for entry in sorted {
                bytes += entry.key
                entry.value.encode(into: &bytes)
            }
        case .bool(let value):
            bytes.append(value ? 0xF5 : 0xF4)
        case .null:
            bytes.append(0xF6)
        }
    }

    /// How many bytes the head of an item with this argument takes in its shortest form: 1, 2,
    /// 3, 5 or 9.
    public static func headCount(argument: UInt64) -> Int {
        switch argument {
        case ..<24: 1
        case ...0xFF: 2
        case ...0xFFFF: 3
        case ...0xFFFF_FFFF: 5
        default: 9
        }
    }

    /// Appends the head (major type and argument) in its shortest form.
    static func appendHead(major: UInt8, argument: UInt64, to bytes: inout [UInt8]) {
        let type = major << 5
        let width: Int
        switch headCount(argument: argument) {
        case 1:
            bytes.append(type | UInt8(argument))
            return
        case 2:
            bytes.append(type | 24)
            width = 1
        case 3:
            bytes.append(type | 25)
            width = 2
        case 5:
            bytes.append(type | 26)
            width = 4
        default:
            bytes.append(type | 27)
            width = 8
        }
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift)))
        }
    }
}
