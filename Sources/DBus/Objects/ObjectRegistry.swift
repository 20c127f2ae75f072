import Synchronization

/// The objects a connection exports: their interfaces with property values, and the paths that
/// act as `org.freedesktop.DBus.ObjectManager` roots.
final class ObjectRegistry: Sendable {
    private struct State {
        var objects: [String: [DBusInterface]] = [:]
        var managers: Set<String> = []
    }

    private let state = Mutex(State())

    /// Adds `interfaces` to the object at `path` (creating it), replacing same-named ones.
    /// Returns the object manager root above `path`, if any, for InterfacesAdded.
    func add(_ interfaces: [DBusInterface], at path: String) -> String? {
        state.withLock { state in
            var current = state.objects[path] ?? []
            for interface in interfaces {
                current.removeAll { $0.name == interface.name }
                current.append(interface)
            }
            state.objects[path] = current
            return Self.managerRoot(above: path, in: state.managers)
        }
    }

    /// Removes the named interfaces (all when nil) from the object at `path`; the object goes
    /// when it has none left. Returns the removed names and the manager root, if any.
    func remove(_ names: [String]?, at path: String) -> (removed: [String], managerRoot: String?) {
        state.withLock { state in
            guard let current = state.objects[path] else { return ([], nil) }
            let removed = current.filter { names?.contains($0.name) ?? true }.map(\.name)
            let kept = current.filter { !removed.contains($0.name) }
            state.objects[path] = kept.isEmpty ? nil : kept
            return (removed, Self.managerRoot(above: path, in: state.managers))
        }
    }

    func addManager(at path: String) {
        state.withLock { _ = $0.managers.insert(path) }
    }

    func removeAll() {
        state.withLock { $0 = State() }
    }

    func interfaces(at path: String) -> [DBusInterface]? {
        state.withLock { $0.objects[path] }
    }

    func isManager(_ path: String) -> Bool {
        state.withLock { $0.managers.contains(path) }
    }

    /// Looks up a property for reading or writing.
    func property(_ name: String, interface: String, at path: String) throws(DBusError) -> DBusProperty {
        guard let interfaces = interfaces(at: path) else {
            throw .error(name: DBusError.Name.unknownObject, message: "no object at \(path)")
        }
        guard let found = interfaces.first(where: { $0.name == interface }) else {
            throw .error(
                name: DBusError.Name.unknownInterface, message: "\(path) has no interface \(interface)")
        }
        guard let property = found.properties.first(where: { $0.name == name }) else {
            throw .error(
                name: DBusError.Name.unknownProperty, message: "\(interface) has no property \(name)")
        }
        return property
    }

    /// Stores a new value of the property's type. Returns whether it changed.
    func setValue(_ value: DBusValue, of name: String, interface: String, at path: String) throws(DBusError)
        -> Bool
    {
        let existing = try property(name, interface: interface, at: path)
        guard existing.value.signature == value.signature else {
            throw .error(
                name: DBusError.Name.invalidArgs,
                message:
                    "\(interface).\(name) has type '\(existing.value.signature)', not '\(value.signature)'")
        }
        return state.withLock { state in
            guard var interfaces = state.objects[path],
                let interfaceIndex = interfaces.firstIndex(where: { $0.name == interface }),
                let propertyIndex = interfaces[interfaceIndex].properties.firstIndex(where: {
                    $0.name == name
                })
            else { return false }
            let changed = interfaces[interfaceIndex].properties[propertyIndex].value != value
            interfaces[interfaceIndex].properties[propertyIndex].value = value
            state.objects[path] = interfaces
            return changed
        }
    }

    /// `a{oa{sa{sv}}}` of every object strictly below `root`, sorted by path.
    func managedObjects(below root: String) -> DBusValue {
        let objects = state.withLock { $0.objects }
        let entries = objects.keys.filter { Self.isStrictDescendant($0, of: root) }.sorted().map { path in
            DBusDictionaryEntry(
                key: .objectPath(path), value: Self.interfacesAndProperties(objects[path] ?? []))
        }
        return .dictionary(keySignature: "o", valueSignature: "a{sa{sv}}", entries)
    }

    /// `a{sa{sv}}` for InterfacesAdded and GetManagedObjects.
    static func interfacesAndProperties(_ interfaces: [DBusInterface]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "a{sv}",
            interfaces.map { DBusDictionaryEntry(key: .string($0.name), value: $0.propertyDictionary) })
    }

    /// The names of the direct children of `path` that are exported or lie on the way to one.
    func childNames(of path: String) -> [String] {
        let paths = state.withLock { Array($0.objects.keys) + Array($0.managers) }
        let prefix = path == "/" ? "/" : path + "/"
        var names = Set<String>()
        for candidate in paths where candidate.hasPrefix(prefix) && candidate != path {
            if let first = candidate.dropFirst(prefix.count).split(separator: "/").first {
                names.insert(String(first))
            }
        }
        return names.sorted()
    }

    private static func managerRoot(above path: String, in managers: Set<String>) -> String? {
        managers.filter { isStrictDescendant(path, of: $0) }.max { $0.count < $1.count }
    }

    static func isStrictDescendant(_ path: String, of root: String) -> Bool {
        path != root && (root == "/" || path.hasPrefix(root + "/"))
    }
}
