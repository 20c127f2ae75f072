import DFUSupport
import GATT
import XCTest

/// `writeWithoutResponse(_:inPacketsOf:)` as a characteristic gets it without a batching
/// transport: one write command per packet, in order.
final class PacketWriteTests: XCTestCase {
    private final class RecordingCharacteristic: GATTCharacteristic {
        let uuid = BluetoothUUID(short: 0xFE59)
        let serviceUUID = BluetoothUUID(short: 0xFE59)
        let properties: CharacteristicProperties = [.writeWithoutResponse]
        let written = Locked<[[UInt8]]>([])

        var maximumWriteWithoutResponseLength: Int { 20 }
        func read(timeout: Duration) async throws -> [UInt8] { [] }
        func write(_ value: [UInt8], timeout: Duration) async throws {}
        func writeWithoutResponse(_ value: [UInt8]) async throws { written.withLock { $0.append(value) } }
        func subscribe(timeout: Duration) async throws -> AsyncThrowingStream<[UInt8], any Error> {
            AsyncThrowingStream { $0.finish() }
        }
    }

    func testBytesAreWrittenAsPacketsWithAShorterLastOne() async throws {
        let characteristic = RecordingCharacteristic()
        let bytes = Array(UInt8(0)..<50)
        try await characteristic.writeWithoutResponse(bytes[5...], inPacketsOf: 20)
        XCTAssertEqual(
            characteristic.written.withLock { $0 }, [Array(5..<25), Array(25..<45), Array(45..<50)])
    }

    func testEmptyBytesAreOneEmptyValue() async throws {
        let characteristic = RecordingCharacteristic()
        try await characteristic.writeWithoutResponse([UInt8]()[...], inPacketsOf: 20)
        XCTAssertEqual(characteristic.written.withLock { $0 }, [[]])
    }
}
