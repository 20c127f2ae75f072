extension DBusConnection {
    /// Exports `interfaces` at `path` (adding them to an object already there, replacing
    /// same-named interfaces). Under an object manager root this emits `InterfacesAdded`.
    ///
    /// Handlers run as tasks; they should not hold the connection strongly, or the connection
    /// lives until it is closed explicitly.
    public func exportObject(at path: String, interfaces: [DBusInterface]) throws(DBusError) {
        try DBusNames.validateObjectPath(path)
        for interface in interfaces {
            try interface.validate()
        }
        if let root = objects.add(interfaces, at: path) {
            try emitSignal(
                path: root, interface: StandardInterfaces.objectManager, member: "InterfacesAdded",
                arguments: [.objectPath(path), ObjectRegistry.interfacesAndProperties(interfaces)])
        }
    }

    /// Removes the named interfaces (all when nil) from the object at `path`; under an object
    /// manager root this emits `InterfacesRemoved`.
    public func removeObject(at path: String, interfaces names: [String]? = nil) throws(DBusError) {
        let (removed, root) = objects.remove(names, at: path)
        if let root, !removed.isEmpty {
            try emitSignal(
                path: root, interface: StandardInterfaces.objectManager, member: "InterfacesRemoved",
                arguments: [.objectPath(path), .stringArray(removed)])
        }
    }

    /// Makes `path` an `org.freedesktop.DBus.ObjectManager` root: `GetManagedObjects` there
    /// lists every exported object below it, and exporting or removing one emits
    /// `InterfacesAdded` / `InterfacesRemoved` from it. No object needs to be exported at `path`.
    public func addObjectManager(at path: String) throws(DBusError) {
        try DBusNames.validateObjectPath(path)
        objects.addManager(at: path)
    }

    /// Changes a property of an exported object; emits `PropertiesChanged` when the value
    /// differs and `emitChanged` is true. The value must keep the property's type.
    public func setProperty(
        _ name: String, interface: String, path: String, to value: DBusValue, emitChanged: Bool = true
    ) throws(DBusError) {
        try value.validate()
        let changed = try objects.setValue(value, of: name, interface: interface, at: path)
        if changed && emitChanged {
            try emitSignal(
                path: path, interface: StandardInterfaces.properties, member: "PropertiesChanged",
                arguments: [.string(interface), .propertyDictionary([(name, value)]), .stringArray([])])
        }
    }

    /// The current value of an exported property.
    public func propertyValue(_ name: String, interface: String, path: String) throws(DBusError) -> DBusValue
    {
        try objects.property(name, interface: interface, at: path).value
    }
}
