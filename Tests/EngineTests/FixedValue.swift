import GATT
import NordicDFU

/// A characteristic that reads `bytes` and takes every write; by default a Firmware Revision String.
final class FixedValue: GATTCharacteristic {
    let bytes: [UInt8]
    let uuid: BluetoothUUID
    let serviceUUID: BluetoothUUID

    init(
        bytes: [UInt8], uuid: BluetoothUUID = DeviceInformationUUIDs.firmwareRevision,
        serviceUUID: BluetoothUUID = DeviceInformationUUIDs.service
    ) {
        self.bytes = bytes
        self.uuid = uuid
        self.serviceUUID = serviceUUID
    }

    var properties: CharacteristicProperties { [.read] }
    var maximumWriteWithoutResponseLength: Int { 20 }
    func read(timeout: Duration) async throws -> [UInt8] { bytes }
    func write(_ value: [UInt8], timeout: Duration) async throws {}
    func writeWithoutResponse(_ value: [UInt8]) async throws {}
    func subscribe(timeout: Duration) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream { $0.finish() }
    }
}
