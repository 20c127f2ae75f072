import DBus

/// The properties of one object, by interface then property name.
typealias InterfaceProperties = [String: [String: DBusValue]]

/// bluetoothd's objects as `GetManagedObjects` lists them: path → interface → property.
struct ObjectTree: Sendable {
    var objects: [String: InterfaceProperties]

    init(objects: [String: InterfaceProperties] = [:]) { self.objects = objects }

    /// Decodes the `a{oa{sa{sv}}}` reply of `GetManagedObjects`.
    init(managedObjects value: DBusValue) {
        objects = [:]
        for (path, interfaces) in value.stringKeyedDictionary ?? [:] {
            objects[path] = Self.interfaces(interfaces)
        }
    }

    /// Decodes the `a{sa{sv}}` of a managed object (also the body of `InterfacesAdded`).
    static func interfaces(_ value: DBusValue) -> InterfaceProperties {
        var result: InterfaceProperties = [:]
        for (interface, properties) in value.stringKeyedDictionary ?? [:] {
            result[interface] = properties.stringKeyedDictionary ?? [:]
        }
        return result
    }

    /// Paths holding `interface`, at or below `prefix`, sorted.
    func paths(with interface: String, under prefix: String = "/") -> [String] {
        objects.filter { path, interfaces in
            interfaces[interface] != nil && (prefix == "/" || path == prefix || path.hasPrefix(prefix + "/"))
        }.keys.sorted()
    }

    func properties(_ path: String, _ interface: String) -> [String: DBusValue]? {
        objects[path]?[interface]
    }
}
