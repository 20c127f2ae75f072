import BlueZ
import GATT
import XCTest

/// Per test: the test peripheral on hci1 and a central on hci0; afterwards the link is closed,
/// the peripheral stopped and the device forgotten (so that no GATT cache outlives a test).
class SystemTestCase: XCTestCase {
    var peripheral: TestPeripheral!
    var central: BlueZCentral!
    private var connected: [BlueZPeripheral] = []

    override func setUp() async throws {
        try await SystemTestEnvironment.requireBlueZ()
        peripheral = try await TestPeripheral.start()
        central = try await BlueZCentral(adapter: SystemTestEnvironment.centralAdapter)
    }

    override func tearDown() async throws {
        await SystemTestEnvironment.printControllerState(ifFailed: testRun, test: name)
        for link in connected { await link.disconnect() }
        connected = []
        if let peripheral {
            await peripheral.stop()
            try? await central?.removeDevice(address: peripheral.address)
        }
        peripheral = nil
        central = nil
    }

    /// Connects to the test peripheral from a central with `options`.
    func connect(_ options: BlueZCentral.Options = BlueZCentral.Options()) async throws -> BlueZPeripheral {
        let central = try await BlueZCentral(adapter: SystemTestEnvironment.centralAdapter, options: options)
        let link = try await central.connectPeripheral(.address(peripheral.address), timeout: .seconds(30))
        connected.append(link)
        return link
    }

    func characteristic(_ uuid: BluetoothUUID, of link: BlueZPeripheral) async throws
        -> any GATTCharacteristic
    {
        for service in try await link.services() {
            if let characteristic = service.characteristic(uuid) { return characteristic }
        }
        throw GATTError.attributeNotFound(uuid.uuidString)
    }
}
