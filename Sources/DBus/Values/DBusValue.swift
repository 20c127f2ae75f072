/// One D-Bus value of any type, with enough type information to marshal it.
///
/// Containers carry the signatures of their elements so that empty arrays and dictionaries
/// still have a type. An `ay` always unmarshals as ``bytes(_:)``; marshalling accepts both
/// ``bytes(_:)`` and `array(elementSignature: "y", ...)`.
public enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    /// An object path (`o`), e.g. `/org/bluez/hci0`.
    case objectPath(String)
    /// A type signature (`g`), e.g. `a{sv}`.
    case signature(String)
    /// A UNIX file descriptor (`h`). Received descriptors are owned by the ``DBusUnixFD``.
    case unixFD(DBusUnixFD)
    /// A byte array (`ay`), the fast path for binary payloads.
    case bytes([UInt8])
    /// An array of values that all have `elementSignature` (a single complete type).
    indirect case array(elementSignature: String, [DBusValue])
    /// A dictionary `a{kv}`; entries keep their order.
    indirect case dictionary(keySignature: String, valueSignature: String, [DBusDictionaryEntry])
    /// A struct `(...)` of one or more fields.
    indirect case structure([DBusValue])
    /// A variant `v`: a value that carries its own signature.
    indirect case variant(DBusValue)
}

/// One entry of a ``DBusValue/dictionary(keySignature:valueSignature:_:)``.
public struct DBusDictionaryEntry: Sendable, Hashable {
    /// The key: a basic type (not a container).
    public var key: DBusValue
    public var value: DBusValue

    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}
