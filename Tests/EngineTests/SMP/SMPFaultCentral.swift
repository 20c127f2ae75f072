import GATT
import MCUmgr
import Synchronization

/// What goes wrong on the SMP characteristic of one connection.
enum SMPLinkFault: Sendable {
    /// The link drops at the first image state read (SMP group 1, command 0, read), as a link
    /// lost while the engine checks a device after its reset.
    case dropAtStateRead
    /// The answer to the upload chunk that ends at `offset` never arrives.
    case loseUploadAnswer(offset: Int)
}

/// A central whose `connection`-th connection (counted from 1) suffers `fault`. Every other
/// connection, and everything else, is the wrapped central's.
final class SMPFaultCentral: GATTCentral {
    private let central: any GATTCentral
    private let fault: SMPLinkFault
    private let connection: Int
    private let connections = Mutex(0)

    init(_ central: any GATTCentral, _ fault: SMPLinkFault, onConnection connection: Int) {
        self.central = central
        self.fault = fault
        self.connection = connection
    }

    var linkTime: any LinkTime { central.linkTime }
    var taskExecutor: (any TaskExecutor)? { central.taskExecutor }

    func scan(_ filter: ScanFilter, timeout: Duration) -> AsyncThrowingStream<Advertisement, any Error> {
        central.scan(filter, timeout: timeout)
    }

    func connect(_ device: DeviceIdentifier, timeout: Duration) async throws -> any GATTPeripheral {
        let peripheral = try await central.connect(device, timeout: timeout)
        let count = connections.withLock {
            $0 += 1
            return $0
        }
        return count == connection ? FaultyPeripheral(peripheral, fault) : peripheral
    }
}

/// A link whose SMP characteristic suffers `fault`.
private final class FaultyPeripheral: GATTPeripheral {
    private let peripheral: any GATTPeripheral
    private let fault: SMPLinkFault

    init(_ peripheral: any GATTPeripheral, _ fault: SMPLinkFault) {
        self.peripheral = peripheral
        self.fault = fault
    }

    var address: BluetoothAddress { peripheral.address }
    var name: String? { peripheral.name }
    var mtu: Int { get async { await peripheral.mtu } }
    var isConnected: Bool { get async { await peripheral.isConnected } }

    func services() async throws -> [GATTService] {
        try await peripheral.services().map { service in
            GATTService(
                uuid: service.uuid,
                characteristics: service.characteristics.map { characteristic in
                    characteristic.uuid == SMPUUIDs.characteristic
                        ? FaultyCharacteristic(characteristic, on: peripheral, fault) : characteristic
                })
        }
    }

    func disconnect() async { await peripheral.disconnect() }

    func waitForDisconnection(timeout: Duration) async throws {
        try await peripheral.waitForDisconnection(timeout: timeout)
    }

    func disconnectDiscardingCachedServices() async { await peripheral.disconnectDiscardingCachedServices() }
}

private final class FaultyCharacteristic: GATTCharacteristic {
    private let characteristic: any GATTCharacteristic
    private let peripheral: any GATTPeripheral
    private let fault: SMPLinkFault

    init(_ characteristic: any GATTCharacteristic, on peripheral: any GATTPeripheral, _ fault: SMPLinkFault) {
        self.characteristic = characteristic
        self.peripheral = peripheral
        self.fault = fault
    }

    var uuid: BluetoothUUID { characteristic.uuid }
    var serviceUUID: BluetoothUUID { characteristic.serviceUUID }
    var properties: CharacteristicProperties { characteristic.properties }
    var maximumWriteWithoutResponseLength: Int {
        get async { await characteristic.maximumWriteWithoutResponseLength }
    }

    func read(timeout: Duration) async throws -> [UInt8] { try await characteristic.read(timeout: timeout) }

    func write(_ value: [UInt8], timeout: Duration) async throws {
        try await characteristic.write(value, timeout: timeout)
    }

    func writeWithoutResponse(_ value: [UInt8]) async throws {
        // header: op (low 3 bits) 0 = read, group 1 = image (big-endian), command 0 = state
        if case .dropAtStateRead = fault, value.count >= SMPHeader.size, value[0] & 0x07 == 0, value[4] == 0,
            value[5] == 1, value[7] == 0
        {
            await peripheral.disconnect()
            throw GATTError.disconnected(device: peripheral.address.description, reason: "the link dropped")
        }
        try await characteristic.writeWithoutResponse(value)
    }

    func subscribe(timeout: Duration) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        let notifications = try await characteristic.subscribe(timeout: timeout)
        guard case .loseUploadAnswer(let offset) = fault else { return notifications }
        // each answer here fits one notification
        return AsyncThrowingStream { continuation in
            let task = Task {
                var lost = false
                do {
                    for try await value in notifications {
                        let answer = (try? SMPResponse(frame: SMPFrame(decoding: value))).flatMap {
                            try? ImageUploadResponse($0)
                        }
                        if !lost, answer?.offset == UInt32(offset) {
                            lost = true
                        } else {
                            continuation.yield(value)
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
