import DBus
import DFUSupport
import GATT

/// A device connected through bluetoothd. The link counts as down once `Device1.Connected`
/// turns false, the device object disappears, bluetoothd leaves the bus, or one of the
/// characteristic sockets is hung up; pending writes and notification streams then fail with
/// `GATTError.disconnected`.
public final class BlueZPeripheral: GATTPeripheral {
    public let address: BluetoothAddress
    public let name: String?
    /// The `Device1` object path.
    public let path: String

    let bus: BlueZBus
    let link = LinkState()
    /// Pairs the device through the central's agent; nil without one.
    let pairing: DevicePairing?
    private let monitor: DeviceMonitor
    let context: CharacteristicContext
    /// The services as bluetoothd lists them, and their characteristics' object paths; a
    /// Service Changed replaces them (`servicesAfterChange`).
    let table: Locked<ServiceTable>

    init(
        central: BlueZCentral, monitor: DeviceMonitor, address: BluetoothAddress, name: String?,
        tree: ObjectTree
    ) {
        self.bus = central.bus
        self.monitor = monitor
        self.address = address
        self.name = name
        self.path = monitor.path
        let pairing = central.agent.map {
            DevicePairing(agent: $0, bus: central.bus, path: monitor.path, address: address.description)
        }
        self.pairing = pairing
        context = CharacteristicContext(
            bus: central.bus, link: link, device: address.description, devicePath: monitor.path,
            options: central.options,
            pendingCommands: CommandWindow(
                limit: central.options.writeValueWindow, bus: central.bus, link: link,
                device: address.description),
            pairing: pairing)
        table = Locked(Self.table(in: tree, under: monitor.path, context: context))
        let link = self.link
        monitor.observe { snapshot in
            if let gone = snapshot.goneReason {
                link.markDown(gone)
            } else if !snapshot.device.isConnected {
                link.markDown("the link is down (Device1.Connected is false)")
            }
        }
    }

    deinit { monitor.stop() }

    public var mtu: Int {
        get async {
            for path in table.withLock(\.characteristicPaths) {
                if let value = try? await bus.property(
                    path, BlueZ.characteristicInterface, "MTU", timeout: .seconds(5)),
                    let mtu = value.intValue
                {
                    return mtu
                }
            }
            return 23
        }
    }

    public var isConnected: Bool {
        get async { link.isUp }
    }

    public func services() async throws -> [GATTService] {
        if let reason = link.downReason {
            throw GATTError.disconnected(device: address.description, reason: reason)
        }
        return table.withLock(\.services)
    }

    public func disconnect() async {
        guard link.isUp else { return }
        // Device1.Disconnect answers after about 2 s (bluetoothd waits for its profiles)
        _ = try? await bus.call(path, BlueZ.deviceInterface, "Disconnect", timeout: .seconds(10))
        try? await link.waitUntilDown(.seconds(5), operation: "\(address) to disconnect")
        link.markDown("disconnected by this host")
        monitor.stop()
    }

    /// Removes the device from bluetoothd, which drops its cached GATT table, unless it is
    /// paired (its keys would go too: then it only disconnects).
    public func disconnectDiscardingCachedServices() async {
        guard link.isUp, await bus.removeUnpairedDevice(path) else { return await disconnect() }
        try? await link.waitUntilDown(.seconds(5), operation: "\(address) to disconnect")
        link.markDown("removed from bluetoothd, with its cached services")
        monitor.stop()
    }

    public func waitForDisconnection(timeout: Duration) async throws {
        try await link.waitUntilDown(timeout, operation: "\(address) to disconnect")
    }
}
