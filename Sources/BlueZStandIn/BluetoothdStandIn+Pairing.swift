import BlueZ
import DBus

/// What the stand-in does of pairing: an agent manager that takes any agent, a `Pair` that
/// bonds at once (Just Works, no agent asked) and a `RemoveDevice` that forgets the bond, so
/// that `dfu-update flash`'s agent and bond policy run against it (the device stays known).
extension BluetoothdStandIn {
    func agentManagerInterface() -> DBusInterface {
        DBusInterface(
            "org.bluez.AgentManager1",
            methods: [("RegisterAgent", "os"), ("RequestDefaultAgent", "o"), ("UnregisterAgent", "o")].map {
                name, arguments in DBusMethod(name, in: arguments) { _ in [] }
            })
    }

    func pairMethod() -> DBusMethod {
        DBusMethod("Pair") { [self] _ in
            try setPaired(true)
            return []
        }
    }

    func removeDeviceMethod() -> DBusMethod {
        DBusMethod("RemoveDevice", in: "o") { [self] _ in
            try setPaired(false)
            return []
        }
    }

    private func setPaired(_ paired: Bool) throws {
        try connection.setProperty(
            "Paired", interface: BlueZ.deviceInterface, path: devicePath, to: .boolean(paired))
    }
}
