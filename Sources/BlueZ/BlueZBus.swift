import DBus
import GATT

/// A signal received from bluetoothd (or from the bus about bluetoothd).
struct BusSignal: Sendable {
    var path: String
    var interface: String
    var member: String
    var arguments: [DBusValue]
}

/// The few D-Bus operations the BlueZ module needs, on one private system-bus connection, all
/// addressed to org.bluez. Keeps the rest of the module independent of how `DBus` spells them.
final class BlueZBus: Sendable {
    static let notRunningMessage =
        "bluetoothd is not running (org.bluez is not on the system bus); start it, e.g. "
        + "`systemctl start bluetooth`"

    let connection: DBusConnection

    init(connection: DBusConnection) { self.connection = connection }

    /// Connects to the system bus and checks that bluetoothd is on it.
    static func connect() async throws -> BlueZBus {
        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect(to: .system)
        } catch {
            throw GATTError.bluetoothUnavailable(
                "cannot connect to the system D-Bus (\(error)); start it, e.g. `systemctl start dbus`, "
                    + "or name another bus in DBUS_SYSTEM_BUS_ADDRESS, and then bluetoothd")
        }
        let bus = BlueZBus(connection: connection)
        guard try await bus.isBlueZRunning() else {
            throw GATTError.bluetoothUnavailable(notRunningMessage)
        }
        return bus
    }

    func isBlueZRunning() async throws -> Bool {
        let reply = try await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", member: "NameHasOwner",
            arguments: [.string(BlueZ.service)], timeout: .seconds(5))
        return reply.first?.boolValue ?? false
    }

    /// Calls a method of bluetoothd; throws `DBusError`.
    func call(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration
    ) async throws -> [DBusValue] {
        try await connection.call(
            destination: BlueZ.service, path: path, interface: interface, member: member,
            arguments: arguments, timeout: timeout)
    }

    /// Sends a method call of bluetoothd now; its reply is awaited later. Throws `DBusError`.
    func startCall(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue], timeout: Duration
    ) throws -> DBusPendingCall {
        try connection.startCall(
            destination: BlueZ.service, path: path, interface: interface, member: member,
            arguments: arguments, timeout: timeout)
    }

    func managedObjects(timeout: Duration = .seconds(10)) async throws -> ObjectTree {
        let reply = try await call("/", BlueZ.objectManagerInterface, "GetManagedObjects", timeout: timeout)
        return ObjectTree(managedObjects: reply.first ?? .array(elementSignature: "y", []))
    }

    func property(_ path: String, _ interface: String, _ name: String, timeout: Duration) async throws
        -> DBusValue
    {
        let reply = try await call(
            path, BlueZ.propertiesInterface, "Get", [.string(interface), .string(name)], timeout: timeout)
        return reply.first?.unwrapped ?? .array(elementSignature: "y", [])
    }

    func setProperty(_ path: String, _ interface: String, _ name: String, _ value: DBusValue) async throws {
        _ = try await call(
            path, BlueZ.propertiesInterface, "Set", [.string(interface), .string(name), .variant(value)],
            timeout: .seconds(10))
    }

    /// bluetoothd's signals about the objects at or below `pathNamespace` (and its object
    /// manager's `InterfacesAdded`/`InterfacesRemoved`), plus the bus's note when bluetoothd
    /// leaves it. The subscription is in place when this returns; it ends when the stream is
    /// dropped. bluetoothd's signals come through one rule, so they keep their order.
    func signals(under pathNamespace: String) async throws -> AsyncStream<BusSignal> {
        let fromBlueZ = try await connection.signals(matching: DBusMatchRule(sender: BlueZ.service))
        let ownerChanges = try await connection.signals(
            matching: DBusMatchRule(
                sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                arguments: [0: BlueZ.service]))
        func wanted(_ signal: DBusSignal) -> Bool {
            signal.interface == BlueZ.objectManagerInterface || signal.path == pathNamespace
                || signal.path.hasPrefix(pathNamespace + "/")
        }
        return AsyncStream { continuation in
            let forwarders = [
                Task {
                    for await signal in fromBlueZ where wanted(signal) {
                        continuation.yield(BusSignal(signal))
                    }
                    continuation.finish()
                },
                Task {
                    for await signal in ownerChanges { continuation.yield(BusSignal(signal)) }
                },
            ]
            continuation.onTermination = { _ in forwarders.forEach { $0.cancel() } }
        }
    }
}

extension BusSignal {
    init(_ signal: DBusSignal) {
        self.init(
            path: signal.path, interface: signal.interface, member: signal.member, arguments: signal.arguments
        )
    }

    /// `NameOwnerChanged` saying that bluetoothd left the bus.
    var isBlueZGone: Bool {
        member == "NameOwnerChanged" && arguments.count == 3 && arguments[2].stringValue == ""
    }

    /// The interface and changed/invalidated properties of a `PropertiesChanged` signal.
    var propertiesChanged: (interface: String, changed: [String: DBusValue], invalidated: [String])? {
        guard member == "PropertiesChanged", arguments.count == 3, let interface = arguments[0].stringValue
        else { return nil }
        return (interface, arguments[1].stringKeyedDictionary ?? [:], arguments[2].stringArrayValue ?? [])
    }

    /// The path and interfaces of an `InterfacesAdded` signal.
    var interfacesAdded: (path: String, interfaces: InterfaceProperties)? {
        guard member == "InterfacesAdded", arguments.count == 2, let path = arguments[0].stringValue else {
            return nil
        }
        return (path, ObjectTree.interfaces(arguments[1]))
    }

    /// The path and interface names of an `InterfacesRemoved` signal.
    var interfacesRemoved: (path: String, interfaces: [String])? {
        guard member == "InterfacesRemoved", arguments.count == 2, let path = arguments[0].stringValue else {
            return nil
        }
        return (path, arguments[1].stringArrayValue ?? [])
    }
}
