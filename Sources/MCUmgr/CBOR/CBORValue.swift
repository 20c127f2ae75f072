/// One CBOR data item of the subset SMP uses (RFC 8949): integers, byte and text strings, arrays,
/// maps, booleans and null.
///
/// Integers keep CBOR's two major types, so the whole range −2⁶⁴ … 2⁶⁴ − 1 is representable:
/// `.unsigned(n)` is n, `.negative(n)` is −1 − n. A map is a dictionary: the decoder refuses a
/// map that names a key twice, and the encoder writes the keys in the deterministic order of
/// RFC 8949 §4.2.1. Floats, tags, `undefined` and other simple values are outside the subset.
///
/// ```swift
/// let request: CBORValue = ["off": 0, "data": .bytes(chunk)]
/// let bytes = request.encoded
/// let answer = try CBORDecoder.decode(bytes)
/// answer["off"]?.integer(as: UInt32.self)  // 0
/// ```
public enum CBORValue: Hashable, Sendable {
    /// Major type 0: the value itself.
    case unsigned(UInt64)
    /// Major type 1: the value −1 − n.
    case negative(UInt64)
    /// Major type 2.
    case bytes([UInt8])
    /// Major type 3, valid UTF-8.
    case text(String)
    /// Major type 4.
    case array([CBORValue])
    /// Major type 5.
    case map([CBORValue: CBORValue])
    /// Simple values 20 (false) and 21 (true).
    case bool(Bool)
    /// Simple value 22.
    case null

    /// An integer in whichever of the two integer major types holds it.
    public init<Integer: BinaryInteger>(_ value: Integer) {
        if value >= 0 {
            self = .unsigned(UInt64(value))
        } else {
            // −1 − value, which is ~value in two's complement and cannot overflow.
            self = .negative(UInt64(~value))
        }
    }

    /// The integer, if this is one that `Integer` can hold.
    public func integer<Integer: FixedWidthInteger>(as type: Integer.Type = Integer.self) -> Integer? {
        switch self {
        case .unsigned(let value):
            return Integer(exactly: value)
        case .negative(let value):
            guard Integer.isSigned, let magnitude = Integer(exactly: value) else { return nil }
            return -1 - magnitude
        default:
            return nil
        }
    }

    /// The text, if this is a text string.
    public var textValue: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The bytes, if this is a byte string.
    public var bytesValue: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    /// The truth value, if this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The items, if this is an array.
    public var arrayValue: [CBORValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// The entries, if this is a map.
    public var mapValue: [CBORValue: CBORValue]? {
        if case .map(let entries) = self { return entries }
        return nil
    }

    /// The value under the text key `key`, if this is a map that has it.
    public subscript(key: String) -> CBORValue? {
        mapValue?[.text(key)]
    }
}

extension CBORValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self.init(value) }
}

extension CBORValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
}

extension CBORValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension CBORValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: CBORValue...) { self = .array(elements) }
}

extension CBORValue: ExpressibleByDictionaryLiteral {
    /// A map; a key given twice keeps its last value.
    public init(dictionaryLiteral elements: (CBORValue, CBORValue)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
}
