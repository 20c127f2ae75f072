import GATT

/// A link to a simulated device. It stays bound to that link: after a disconnect, operations
/// throw `GATTError.disconnected` even when the device is connected again through a new peripheral.
final class SimulatedPeripheral: GATTPeripheral {
    let address: BluetoothAddress
    let name: String?
    private let world: SimulationWorld
    private let device: Int
    private let connection: Int
    private let linkMTU: Int
    private let disconnection: DisconnectionSignal
    private let serviceList: [GATTService]

    init(
        world: SimulationWorld, device index: Int, connection link: SimulatedConnection,
        snapshot: SimulatedDevice
    ) {
        self.world = world
        device = index
        connection = link.id
        address = snapshot.address
        name = snapshot.advertisedName
        linkMTU = link.mtu
        disconnection = link.disconnection
        let timing = snapshot.core.timing
        serviceList = snapshot.firmware.services.map { service in
            GATTService(
                uuid: service.uuid,
                characteristics: service.characteristics.map { spec in
                    SimulatedCharacteristic(
                        spec: spec, service: service.uuid, world: world, device: index, connection: link.id,
                        mtu: link.mtu, timing: timing)
                })
        }
    }

    var mtu: Int { linkMTU }

    var isConnected: Bool { !disconnection.isFired }

    func services() async throws -> [GATTService] {
        guard isConnected else {
            throw GATTError.disconnected(device: address.description, reason: "the simulated link is down")
        }
        return serviceList
    }

    func disconnect() async {
        try? world.withLink(device: device, connection: connection) { state, link in
            SimulationWorld.dropLink(
                of: device, link: link, at: state.now, reason: "disconnected by the central", in: &state)
        }
    }

    func waitForDisconnection(timeout: Duration) async throws {
        try await disconnection.wait(timeout: timeout)
        world.state.withLock { state in state.now = max(state.now, state.devices[device].lastDisconnection) }
    }
}
