/// The `org.freedesktop.DBus.*` interfaces every exported object answers: Introspectable,
/// Properties and (on manager roots) ObjectManager. libdbus itself answers `Peer`.
struct StandardInterfaces {
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let properties = "org.freedesktop.DBus.Properties"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"

    enum Answer {
        case reply([DBusValue])
        /// A remote Set that passed the checks; the caller runs the property's hook and stores it.
        case setProperty(DBusProperty, interface: String, value: DBusValue)
    }

    let objects: ObjectRegistry
    let path: String

    /// The answer to a standard call, or nil when the call is for an exported interface.
    func answer(interface: String?, member: String, call: Message) throws(DBusError) -> Answer? {
        switch (interface, member) {
        case (Self.introspectable, "Introspect"):
            guard
                path == "/" || objects.interfaces(at: path) != nil || !objects.childNames(of: path).isEmpty
                    || objects.isManager(path)
            else { throw .error(name: DBusError.Name.unknownObject, message: "no object at \(path)") }
            return .reply([.string(Introspection.xml(for: path, objects: objects))])
        case (Self.properties, "Get"):
            let (interfaceName, name) = try twoStrings(call)
            let property = try objects.property(name, interface: interfaceName, at: path)
            return .reply([.variant(property.value)])
        case (Self.properties, "GetAll"):
            guard call.signature == "s", let interfaceName = call.arguments().first?.stringValue else {
                throw .error(name: DBusError.Name.invalidArgs, message: "GetAll takes 's'")
            }
            guard let interfaces = objects.interfaces(at: path) else {
                throw .error(name: DBusError.Name.unknownObject, message: "no object at \(path)")
            }
            guard let found = interfaces.first(where: { $0.name == interfaceName }) else {
                throw .error(
                    name: DBusError.Name.unknownInterface,
                    message: "\(path) has no interface \(interfaceName)")
            }
            return .reply([found.propertyDictionary])
        case (Self.properties, "Set"):
            let arguments = call.arguments()
            guard call.signature == "ssv", let interfaceName = arguments[0].stringValue,
                let name = arguments[1].stringValue, case .variant(let value) = arguments[2]
            else { throw .error(name: DBusError.Name.invalidArgs, message: "Set takes 'ssv'") }
            let property = try objects.property(name, interface: interfaceName, at: path)
            guard property.access == .readWrite else {
                throw .error(
                    name: DBusError.Name.propertyReadOnly, message: "\(interfaceName).\(name) is read-only")
            }
            guard property.value.signature == value.signature else {
                throw .error(
                    name: DBusError.Name.invalidArgs,
                    message:
                        "\(interfaceName).\(name) has type '\(property.value.signature)', not '\(value.signature)'"
                )
            }
            return .setProperty(property, interface: interfaceName, value: value)
        case (Self.objectManager, "GetManagedObjects") where objects.isManager(path):
            return .reply([objects.managedObjects(below: path)])
        case (Self.introspectable, _), (Self.properties, _):
            throw .error(
                name: DBusError.Name.unknownMethod, message: "\(interface ?? "") has no method \(member)")
        default:
            return nil
        }
    }

    private func twoStrings(_ call: Message) throws(DBusError) -> (String, String) {
        let arguments = call.arguments()
        guard call.signature == "ss", let first = arguments[0].stringValue,
            let second = arguments[1].stringValue
        else {
            throw .error(
                name: DBusError.Name.invalidArgs, message: "expected arguments 'ss', got '\(call.signature)'")
        }
        return (first, second)
    }
}
