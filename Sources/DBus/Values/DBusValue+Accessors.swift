extension DBusValue {
    /// The value inside any number of variant layers.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// The text of a string, object path or signature.
    public var stringValue: String? {
        switch unwrapped {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    public var objectPathValue: String? {
        if case .objectPath(let path) = unwrapped { return path }
        return nil
    }

    public var boolValue: Bool? {
        if case .boolean(let flag) = unwrapped { return flag }
        return nil
    }

    /// Any integer type (and byte), as `Int64` when it fits.
    public var integerValue: Int64? {
        switch unwrapped {
        case .byte(let number): Int64(number)
        case .int16(let number): Int64(number)
        case .uint16(let number): Int64(number)
        case .int32(let number): Int64(number)
        case .uint32(let number): Int64(number)
        case .int64(let number): number
        case .uint64(let number): Int64(exactly: number)
        default: nil
        }
    }

    public var doubleValue: Double? {
        if case .double(let number) = unwrapped { return number }
        return nil
    }

    /// The bytes of an `ay` (either representation).
    public var bytes: [UInt8]? {
        switch unwrapped {
        case .bytes(let bytes):
            return bytes
        case .array("y", let values):
            return values.compactMap { if case .byte(let byte) = $0 { byte } else { nil } }
        default:
            return nil
        }
    }

    public var unixFDValue: DBusUnixFD? {
        if case .unixFD(let fd) = unwrapped { return fd }
        return nil
    }

    /// The elements of an array (an `ay` gives `.byte` elements).
    public var arrayValue: [DBusValue]? {
        switch unwrapped {
        case .array(_, let values): values
        case .bytes(let bytes): bytes.map(DBusValue.byte)
        default: nil
        }
    }

    /// The strings of an `as`, `ao` or `ag`.
    public var stringArrayValue: [String]? {
        arrayValue?.compactMap(\.stringValue)
    }

    public var structFields: [DBusValue]? {
        if case .structure(let fields) = unwrapped { return fields }
        return nil
    }

    public var dictionaryEntries: [DBusDictionaryEntry]? {
        if case .dictionary(_, _, let entries) = unwrapped { return entries }
        return nil
    }

    /// A dictionary with string-like keys (`a{sv}`, `a{oa{sv}}`, ...) as a Swift dictionary;
    /// variant values are unwrapped. Later duplicates win.
    public var stringKeyedDictionary: [String: DBusValue]? {
        guard let entries = dictionaryEntries else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.stringValue else { return nil }
            result[key] = entry.value.unwrapped
        }
        return result
    }

    // MARK: Building

    /// An `a{sv}` from name/value pairs (each value is wrapped in a variant), in the given order.
    public static func propertyDictionary(_ properties: [(String, DBusValue)]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "v",
            properties.map { DBusDictionaryEntry(key: .string($0.0), value: .variant($0.1)) })
    }

    /// An `a{sv}` from a Swift dictionary, sorted by key so the wire form is stable.
    public static func propertyDictionary(_ properties: [String: DBusValue]) -> DBusValue {
        propertyDictionary(properties.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// An `as`.
    public static func stringArray(_ strings: [String]) -> DBusValue {
        .array(elementSignature: "s", strings.map(DBusValue.string))
    }

    /// An `ao`.
    public static func objectPathArray(_ paths: [String]) -> DBusValue {
        .array(elementSignature: "o", paths.map(DBusValue.objectPath))
    }
}
