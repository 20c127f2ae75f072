import CDBus

/// Reads a message body into ``DBusValue``s. Every `h` read gives a fresh duplicate descriptor,
/// owned from then on by its ``DBusUnixFD``.
enum MessageReader {
    static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        return readAll(&iterator)
    }

    private static func readAll(_ iterator: inout DBusMessageIter) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != TypeCode.invalid {
            values.append(read(&iterator))
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    private static func read(_ iterator: inout DBusMessageIter) -> DBusValue {
        let code = dbus_message_iter_get_arg_type(&iterator)
        switch code {
        case TypeCode.byte: return .byte(basic(&iterator, UInt8(0)))
        case TypeCode.boolean: return .boolean(basic(&iterator, dbus_bool_t(0)) != 0)
        case TypeCode.int16: return .int16(basic(&iterator, Int16(0)))
        case TypeCode.uint16: return .uint16(basic(&iterator, UInt16(0)))
        case TypeCode.int32: return .int32(basic(&iterator, Int32(0)))
        case TypeCode.uint32: return .uint32(basic(&iterator, UInt32(0)))
        case TypeCode.int64: return .int64(basic(&iterator, Int64(0)))
        case TypeCode.uint64: return .uint64(basic(&iterator, UInt64(0)))
        case TypeCode.double: return .double(basic(&iterator, Double(0)))
        case TypeCode.string: return .string(string(&iterator))
        case TypeCode.objectPath: return .objectPath(string(&iterator))
        case TypeCode.signature: return .signature(string(&iterator))
        case TypeCode.unixFD: return .unixFD(DBusUnixFD(owning: basic(&iterator, Int32(-1))))
        case TypeCode.array: return array(&iterator)
        case TypeCode.variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            return .variant(read(&sub))
        case TypeCode.structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            return .structure(readAll(&sub))
        default:
            // libdbus validated the message, so only a type newer than this code lands here.
            return .string("<unsupported D-Bus type \(code)>")
        }
    }

    private static func array(_ iterator: inout DBusMessageIter) -> DBusValue {
        let signature = currentSignature(&iterator)
        let element = String(signature.dropFirst())
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &sub)
        if element == "y" {
            var base: UnsafeMutableRawPointer?
            var count: Int32 = 0
            withUnsafeMutablePointer(to: &base) { dbus_message_iter_get_fixed_array(&sub, $0, &count) }
            guard let base, count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: base, count: Int(count))))
        }
        if element.hasPrefix("{") {
            // "{" + one basic key code + value type + "}"
            let inner = element.dropFirst().dropLast()
            let key = String(inner.prefix(1))
            let value = String(inner.dropFirst())
            var entries: [DBusDictionaryEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == TypeCode.dictionaryEntry {
                var pair = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &pair)
                let entryKey = read(&pair)
                dbus_message_iter_next(&pair)
                entries.append(DBusDictionaryEntry(key: entryKey, value: read(&pair)))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(keySignature: key, valueSignature: value, entries)
        }
        return .array(elementSignature: element, readAll(&sub))
    }

    private static func basic<T>(_ iterator: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iterator, $0) }
        return value
    }

    private static func string(_ iterator: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>?
        withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_basic(&iterator, $0) }
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func currentSignature(_ iterator: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iterator) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }
}
