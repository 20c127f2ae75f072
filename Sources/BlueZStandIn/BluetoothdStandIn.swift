import BlueZ
import DBus
import DFUSimulator
import DFUSupport
import Foundation
import GATT

/// What the updater sees of bluetoothd, without a radio: `org.bluez` on a private bus with
/// adapter hci0, one device (a `RealTimeDevice`, as dfu-sim serves it) and its GATT table once
/// connected. Writes reach the device in the order the central made them (datagrams of
/// `AcquireWrite` before a later `WriteValue`, as over one ATT bearer); notifications go through
/// the `AcquireNotify` socket, or as `PropertiesChanged` after `StartNotify`, in the order they
/// fall due. One link at a time, no scanning (the device is known to it from the start): enough
/// for `dfu-bench host`, which measures the updater's own cost of the D-Bus path on a host
/// without Bluetooth (`dfu-sim --bluetoothd-stand-in`; docs/dfu-sim.md).
public final class BluetoothdStandIn: Sendable {
    /// The adapter it exports.
    public static let adapterPath = "/org/bluez/hci0"
    public static let adapterAddress = "00:00:00:00:00:01"

    struct State {
        var connected = false
        /// Characteristic object paths by UUID, while connected.
        var characteristics: [BluetoothUUID: String] = [:]
        /// Our ends of the `AcquireNotify` sockets, by characteristic.
        var notifySockets: [BluetoothUUID: Int32] = [:]
        var startedNotify: Set<BluetoothUUID> = []
        var exported: [String] = []
        /// Bumped by every link drop: a notification due on a link that dropped is not sent.
        var link = 0
    }

    let connection: DBusConnection
    let device: RealTimeDevice
    let state = Locked(State())
    private let writes = AcquiredWrites()
    /// What the device does after a write, carried out in order by one task.
    let actions = AsyncStream<Action>.makeStream()
    private let actionRunner = Locked<Task<Void, Never>?>(nil)

    enum Action {
        case notify(BluetoothUUID, [UInt8], due: ContinuousClock.Instant, link: Int)
        case dropLink(rebootDelay: Duration?)
    }

    /// The device's object path.
    let devicePath: String

    /// Owns `org.bluez` on `connection` and exports the adapter and the device.
    public init(connection: DBusConnection, device: RealTimeDevice) async throws {
        self.connection = connection
        self.device = device
        devicePath =
            Self.adapterPath + "/dev_"
            + device.persona.address.description.replacingOccurrences(of: ":", with: "_")
        try connection.addObjectManager(at: "/")
        try connection.exportObject(at: "/org/bluez", interfaces: [agentManagerInterface()])
        try connection.exportObject(at: Self.adapterPath, interfaces: [adapterInterface()])
        try connection.exportObject(at: devicePath, interfaces: [deviceInterface()])
        try await connection.requestName(BlueZ.service)
        let runner = Task { [self] in
            for await action in actions.stream { await carryOut(action) }
        }
        actionRunner.withLock { $0 = runner }
    }

    /// Drops the link and closes the sockets.
    public func stop() {
        actionRunner.withLock { $0?.cancel() }
        dropLink()
        writes.stop()
    }

    // MARK: - adapter and device

    private func adapterInterface() -> DBusInterface {
        DBusInterface(
            BlueZ.adapterInterface,
            // discovery does nothing: the device is known from the start
            methods: [
                ("StartDiscovery", ""), ("StopDiscovery", ""), ("SetDiscoveryFilter", "a{sv}"),
            ].map { name, arguments in DBusMethod(name, in: arguments) { _ in [] } } + [removeDeviceMethod()],
            properties: [
                DBusProperty("Address", value: .string(Self.adapterAddress)),
                DBusProperty("Powered", value: .boolean(true)),
            ])
    }

    private func deviceInterface() -> DBusInterface {
        let persona = device.persona
        return DBusInterface(
            BlueZ.deviceInterface,
            methods: [
                DBusMethod("Connect") { [self] _ in try connect() },
                DBusMethod("Disconnect") { [self] _ in
                    dropLink()
                    return []
                },
                pairMethod(),
            ],
            properties: [
                DBusProperty("Address", value: .string(persona.address.description)),
                DBusProperty("AddressType", value: .string("random")),
                DBusProperty("Name", value: .string(persona.name)),
                DBusProperty("Paired", value: .boolean(false)),
                DBusProperty("Connected", value: .boolean(false)),
                DBusProperty("ServicesResolved", value: .boolean(false)),
                DBusProperty("UUIDs", value: .stringArray(persona.advertisedServices.map(\.description))),
            ])
    }

    private func connect() throws -> [DBusValue] {
        guard !state.withLock({ $0.connected }) else { return [] }
        guard device.connectionAttempt() else {
            throw DBusError.error(name: BlueZ.failedError, message: BlueZ.localConnectAbort)
        }
        try exportTable(device.persona)
        state.withLock { $0.connected = true }
        try connection.setProperty(
            "Connected", interface: BlueZ.deviceInterface, path: devicePath, to: .boolean(true))
        try connection.setProperty(
            "ServicesResolved", interface: BlueZ.deviceInterface, path: devicePath, to: .boolean(true))
        return []
    }

    /// Ends the link: the table goes, the sockets hang up, the device hears of it.
    func dropLink() {
        let ended = state.withLock { state -> State? in
            guard state.connected else { return nil }
            defer {
                state.connected = false
                state.characteristics = [:]
                state.notifySockets = [:]
                state.startedNotify = []
                state.exported = []
                state.link += 1
            }
            return state
        }
        guard let ended else { return }
        for socket in ended.notifySockets.values { close(socket) }
        try? connection.setProperty(
            "ServicesResolved", interface: BlueZ.deviceInterface, path: devicePath, to: .boolean(false))
        try? connection.setProperty(
            "Connected", interface: BlueZ.deviceInterface, path: devicePath, to: .boolean(false))
        for path in ended.exported.reversed() { try? connection.removeObject(at: path) }
        device.linkDropped()
    }

    // MARK: - the GATT table

    private func exportTable(_ persona: RealTimeDevice.Persona) throws {
        var handle = 0x000a
        var exported: [String] = []
        var characteristics: [BluetoothUUID: String] = [:]
        for service in persona.services {
            let servicePath = devicePath + String(format: "/service%04x", handle)
            try connection.exportObject(
                at: servicePath,
                interfaces: [
                    DBusInterface(
                        BlueZ.serviceInterface,
                        properties: [
                            DBusProperty("UUID", value: .string(service.uuid.description)),
                            DBusProperty("Primary", value: .boolean(true)),
                            DBusProperty("Device", value: .objectPath(devicePath)),
                        ])
                ])
            exported.append(servicePath)
            for characteristic in service.characteristics {
                handle += 2
                let path = servicePath + String(format: "/char%04x", handle)
                try connection.exportObject(
                    at: path, interfaces: [characteristicInterface(characteristic, servicePath: servicePath)])
                exported.append(path)
                characteristics[characteristic.uuid] = path
            }
            handle += 2
        }
        state.withLock { state in
            state.exported = exported
            state.characteristics = characteristics
        }
    }

    private func characteristicInterface(
        _ characteristic: RealTimeDevice.Persona.Characteristic, servicePath: String
    ) -> DBusInterface {
        let uuid = characteristic.uuid
        return DBusInterface(
            BlueZ.characteristicInterface,
            methods: [
                .immediate("WriteValue", in: "aya{sv}") { [self] call in
                    try writes.deliver(call.arguments.first?.bytes ?? []) { received(uuid, $0) }
                    return []
                },
                .immediate("ReadValue", in: "a{sv}", out: "ay") { [device] _ in
                    [.bytes(device.read(uuid) ?? [])]
                },
                .immediate("AcquireWrite", in: "a{sv}", out: "hq") { [self] _ in
                    try writes.acquire(options: [.propertyDictionary([("mtu", .uint16(UInt16(Self.mtu)))])]) {
                        self.received(uuid, $0)
                    }
                },
                .immediate("AcquireNotify", in: "a{sv}", out: "hq") { [self] _ in try acquireNotify(uuid) },
                .immediate("StartNotify") { [self] _ in
                    state.withLock { _ = $0.startedNotify.insert(uuid) }
                    return []
                },
                .immediate("StopNotify") { [self] _ in
                    state.withLock { _ = $0.startedNotify.remove(uuid) }
                    return []
                },
            ],
            properties: [
                DBusProperty("UUID", value: .string(uuid.description)),
                DBusProperty("Service", value: .objectPath(servicePath)),
                DBusProperty("Flags", value: .stringArray(characteristic.properties.flagNames)),
                DBusProperty("MTU", value: .uint16(UInt16(Self.mtu))),
                DBusProperty("Value", value: .bytes([])),
            ])
    }

    /// The ATT MTU of the stand-in's link: bluetoothd's default.
    static let mtu = 517

    private func acquireNotify(_ uuid: BluetoothUUID) throws -> [DBusValue] {
        var pair: [Int32] = [-1, -1]
        guard
            socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0
        else { throw DBusError.error(name: BlueZ.failedError, message: "socketpair: errno \(errno)") }
        // a second AcquireNotify replaces the first socket, which hangs up
        let replaced = state.withLock { $0.notifySockets.updateValue(pair[0], forKey: uuid) }
        if let replaced { close(replaced) }
        return [.unixFD(DBusUnixFD(owning: pair[1])), .uint16(UInt16(Self.mtu))]
    }
}
