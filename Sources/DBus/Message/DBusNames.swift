import CDBus

/// Validation of names and signatures before they reach libdbus, whose own checks abort the
/// process on invalid input.
enum DBusNames {
    static func validateObjectPath(_ path: String) throws(DBusError) {
        try check(path, "object path", dbus_validate_path)
    }

    static func validateInterface(_ name: String) throws(DBusError) {
        try check(name, "interface name", dbus_validate_interface)
    }

    static func validateMember(_ name: String) throws(DBusError) {
        try check(name, "member name", dbus_validate_member)
    }

    static func validateErrorName(_ name: String) throws(DBusError) {
        try check(name, "error name", dbus_validate_error_name)
    }

    static func validateBusName(_ name: String) throws(DBusError) {
        try check(name, "bus name", dbus_validate_bus_name)
    }

    static func validateSignature(_ signature: String) throws(DBusError) {
        let valid = signature.withCString { dbus_signature_validate($0, nil) != 0 }
        if !valid || signature.utf8.contains(0) {
            throw .invalidArguments("'\(signature)' is not a valid D-Bus signature")
        }
    }

    static func validateSingleType(_ signature: String) throws(DBusError) {
        let valid = signature.withCString { dbus_signature_validate_single($0, nil) != 0 }
        if !valid || signature.utf8.contains(0) {
            throw .invalidArguments("'\(signature)' is not a single complete D-Bus type")
        }
    }

    private static func check(
        _ name: String, _ what: String,
        _ validator: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t
    ) throws(DBusError) {
        let valid = name.withCString { validator($0, nil) != 0 }
        if !valid || name.utf8.contains(0) {
            throw .invalidArguments("'\(name)' is not a valid D-Bus \(what)")
        }
    }
}
