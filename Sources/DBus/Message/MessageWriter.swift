import CDBus

/// Appends ``DBusValue``s to a message through libdbus's iterator API. Values must have been
/// validated (``DBusValue/validate()``): libdbus aborts on type mismatches.
enum MessageWriter {
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws(DBusError) {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        for value in values {
            try append(value, to: &iterator)
        }
    }

    static func append(_ value: DBusValue, to iterator: inout DBusMessageIter) throws(DBusError) {
        let appended: Bool
        switch value {
        case .byte(let byte): appended = appendBasic(byte, TypeCode.byte, &iterator)
        case .boolean(let flag):
            appended = appendBasic(dbus_bool_t(flag ? 1 : 0), TypeCode.boolean, &iterator)
        case .int16(let number): appended = appendBasic(number, TypeCode.int16, &iterator)
        case .uint16(let number): appended = appendBasic(number, TypeCode.uint16, &iterator)
        case .int32(let number): appended = appendBasic(number, TypeCode.int32, &iterator)
        case .uint32(let number): appended = appendBasic(number, TypeCode.uint32, &iterator)
        case .int64(let number): appended = appendBasic(number, TypeCode.int64, &iterator)
        case .uint64(let number): appended = appendBasic(number, TypeCode.uint64, &iterator)
        case .double(let number): appended = appendBasic(number, TypeCode.double, &iterator)
        case .string(let text): appended = appendString(text, TypeCode.string, &iterator)
        case .objectPath(let path): appended = appendString(path, TypeCode.objectPath, &iterator)
        case .signature(let signature): appended = appendString(signature, TypeCode.signature, &iterator)
        case .unixFD(let fd):
            // libdbus duplicates the descriptor into the message.
            appended = appendBasic(fd.fileDescriptor, TypeCode.unixFD, &iterator)
        case .bytes(let bytes):
            appended = appendBytes(bytes, &iterator)
        case .array(let element, let values) where element == "y":
            appended = appendBytes(values.map { if case .byte(let byte) = $0 { byte } else { 0 } }, &iterator)
        case .array(let element, let values):
            try appendContainer(TypeCode.array, element, &iterator) { (sub) throws(DBusError) in
                for value in values {
                    try append(value, to: &sub)
                }
            }
            appended = true
        case .dictionary(let key, let valueSignature, let entries):
            try appendContainer(TypeCode.array, "{" + key + valueSignature + "}", &iterator) {
                (sub) throws(DBusError) in
                for entry in entries {
                    try appendContainer(TypeCode.dictionaryEntry, nil, &sub) { (pair) throws(DBusError) in
                        try append(entry.key, to: &pair)
                        try append(entry.value, to: &pair)
                    }
                }
            }
            appended = true
        case .structure(let fields):
            try appendContainer(TypeCode.structure, nil, &iterator) { (sub) throws(DBusError) in
                for field in fields {
                    try append(field, to: &sub)
                }
            }
            appended = true
        case .variant(let inner):
            try appendContainer(TypeCode.variant, inner.signature, &iterator) { (sub) throws(DBusError) in
                try append(inner, to: &sub)
            }
            appended = true
        }
        if !appended {
            throw outOfMemory
        }
    }

    private static let outOfMemory = DBusError.error(
        name: "org.freedesktop.DBus.Error.NoMemory", message: "libdbus could not allocate the message")

    private static func appendBasic<T>(_ value: T, _ code: Int32, _ iterator: inout DBusMessageIter) -> Bool {
        withUnsafePointer(to: value) { dbus_message_iter_append_basic(&iterator, code, $0) != 0 }
    }

    private static func appendString(_ text: String, _ code: Int32, _ iterator: inout DBusMessageIter) -> Bool
    {
        text.withCString { pointer in
            var cString: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iterator, code, &cString) != 0
        }
    }

    private static func appendBytes(_ bytes: [UInt8], _ iterator: inout DBusMessageIter) -> Bool {
        var sub = DBusMessageIter()
        guard dbus_message_iter_open_container(&iterator, TypeCode.array, "y", &sub) != 0 else {
            return false
        }
        let filled =
            bytes.isEmpty
            || bytes.withUnsafeBufferPointer { buffer in
                var base = buffer.baseAddress
                return dbus_message_iter_append_fixed_array(&sub, TypeCode.byte, &base, Int32(buffer.count))
                    != 0
            }
        guard filled else {
            dbus_message_iter_abandon_container(&iterator, &sub)
            return false
        }
        return dbus_message_iter_close_container(&iterator, &sub) != 0
    }

    private static func appendContainer(
        _ code: Int32, _ signature: String?, _ iterator: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        var sub = DBusMessageIter()
        let opened =
            if let signature {
                signature.withCString { dbus_message_iter_open_container(&iterator, code, $0, &sub) != 0 }
            } else {
                dbus_message_iter_open_container(&iterator, code, nil, &sub) != 0
            }
        guard opened else { throw outOfMemory }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iterator, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iterator, &sub) != 0 else { throw outOfMemory }
    }
}
