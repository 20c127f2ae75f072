import CDBus

extension DBusValue {
    /// The D-Bus signature of this value, e.g. `a{sv}` for a property dictionary.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// Checks what libdbus would otherwise abort on: container contents that disagree with
    /// their declared signatures, invalid object paths and signatures, strings with NUL bytes,
    /// empty structs.
    func validate() throws(DBusError) {
        switch self {
        case .string(let text):
            if text.utf8.contains(0) {
                throw .invalidArguments("a D-Bus string cannot contain a NUL character")
            }
        case .objectPath(let path):
            try DBusNames.validateObjectPath(path)
        case .signature(let signature):
            try DBusNames.validateSignature(signature)
        case .unixFD(let fd):
            if fd.fileDescriptor < 0 {
                throw .invalidArguments("the file descriptor was already taken")
            }
        case .array(let element, let values):
            try DBusNames.validateSingleType(element)
            for value in values {
                try value.validate()
                try Self.expect(value, element, in: "array")
            }
        case .dictionary(let key, let value, let entries):
            try DBusNames.validateSingleType("a{" + key + value + "}")
            for entry in entries {
                try entry.key.validate()
                try entry.value.validate()
                try Self.expect(entry.key, key, in: "dictionary key")
                try Self.expect(entry.value, value, in: "dictionary value")
            }
        case .structure(let fields):
            if fields.isEmpty {
                throw .invalidArguments("a D-Bus struct needs at least one field")
            }
            for field in fields {
                try field.validate()
            }
        case .variant(let inner):
            try inner.validate()
        default:
            break
        }
    }

    private static func expect(_ value: DBusValue, _ signature: String, in place: String) throws(DBusError) {
        let actual = value.signature
        if actual != signature {
            throw .invalidArguments("\(place) has type '\(actual)' where '\(signature)' was declared")
        }
    }
}

extension Array where Element == DBusValue {
    /// The concatenated signature of a message body.
    public var dbusSignature: String {
        map(\.signature).joined()
    }
}

/// Signature helpers.
public enum DBusSignature {
    /// Splits a signature into its single complete types (`"sa{sv}as"` → `["s", "a{sv}", "as"]`),
    /// or returns nil when it is not a valid signature.
    public static func split(_ signature: String) -> [String]? {
        guard (try? DBusNames.validateSignature(signature)) != nil else { return nil }
        if signature.isEmpty { return [] }
        return signature.withCString { pointer -> [String]? in
            var iterator = DBusSignatureIter()
            dbus_signature_iter_init(&iterator, pointer)
            var types: [String] = []
            repeat {
                guard let single = dbus_signature_iter_get_signature(&iterator) else { return nil }
                types.append(String(cString: single))
                dbus_free(single)
            } while dbus_signature_iter_next(&iterator) != 0
            return types
        }
    }
}
