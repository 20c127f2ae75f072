import GATT
import Synchronization

/// A central whose devices refuse every write and subscription for security, as the `BlueZ`
/// module reports a device that did not pair (`GATTError.securityFailed`). Counts connections
/// and keeps every link it opened, to check that none is left up.
final class SecurityRefusingCentral: GATTCentral {
    private let central: any GATTCentral
    private let failure: GATTSecurityFailure
    private let opened = Mutex<[any GATTPeripheral]>([])

    init(_ central: any GATTCentral, failing failure: GATTSecurityFailure) {
        self.central = central
        self.failure = failure
    }

    var linkTime: any LinkTime { central.linkTime }

    /// How many connections were made.
    var connections: Int { opened.withLock { $0.count } }

    /// Whether any link is still up.
    var anyLinkUp: Bool {
        get async {
            for peripheral in opened.withLock({ $0 }) where await peripheral.isConnected { return true }
            return false
        }
    }

    func scan(_ filter: ScanFilter, timeout: Duration) -> AsyncThrowingStream<Advertisement, any Error> {
        central.scan(filter, timeout: timeout)
    }

    func connect(_ device: DeviceIdentifier, timeout: Duration) async throws -> any GATTPeripheral {
        let peripheral = try await central.connect(device, timeout: timeout)
        opened.withLock { $0.append(peripheral) }
        return RefusingPeripheral(peripheral, failure: failure)
    }
}

private final class RefusingPeripheral: GATTPeripheral {
    private let peripheral: any GATTPeripheral
    private let failure: GATTSecurityFailure

    init(_ peripheral: any GATTPeripheral, failure: GATTSecurityFailure) {
        self.peripheral = peripheral
        self.failure = failure
    }

    var address: BluetoothAddress { peripheral.address }
    var name: String? { peripheral.name }
    var mtu: Int { get async { await peripheral.mtu } }
    var isConnected: Bool { get async { await peripheral.isConnected } }

    func services() async throws -> [GATTService] {
        try await peripheral.services().map { service in
            GATTService(
                uuid: service.uuid,
                characteristics: service.characteristics.map {
                    RefusingCharacteristic(
                        $0,
                        refusal: .securityFailed(
                            device: address.description, failure: failure, reason: "refused"))
                })
        }
    }

    func disconnect() async { await peripheral.disconnect() }

    func waitForDisconnection(timeout: Duration) async throws {
        try await peripheral.waitForDisconnection(timeout: timeout)
    }
}

/// Reads pass (a device's version is often open); writes and subscriptions are refused.
private final class RefusingCharacteristic: GATTCharacteristic {
    private let characteristic: any GATTCharacteristic
    private let refusal: GATTError

    init(_ characteristic: any GATTCharacteristic, refusal: GATTError) {
        self.characteristic = characteristic
        self.refusal = refusal
    }

    var uuid: BluetoothUUID { characteristic.uuid }
    var serviceUUID: BluetoothUUID { characteristic.serviceUUID }
    var properties: CharacteristicProperties { characteristic.properties }
    var maximumWriteWithoutResponseLength: Int {
        get async { await characteristic.maximumWriteWithoutResponseLength }
    }

    func read(timeout: Duration) async throws -> [UInt8] { try await characteristic.read(timeout: timeout) }

    func write(_ value: [UInt8], timeout: Duration) async throws { throw refusal }

    func writeWithoutResponse(_ value: [UInt8]) async throws { throw refusal }

    func subscribe(timeout: Duration) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        throw refusal
    }
}
