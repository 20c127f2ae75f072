import DFUSupport
import GATT
import XCTest

/// `writeWithoutResponse(_:inPacketsOf:written:)` as a characteristic gets it without a batching
/// transport: one write command per packet, in order, each counted once it went out.
final class PacketWriteTests: XCTestCase {
    private final class RecordingCharacteristic: GATTCharacteristic {
        let uuid = BluetoothUUID(short: 0xFE59)
        let serviceUUID = BluetoothUUID(short: 0xFE59)
        let properties: CharacteristicProperties = [.writeWithoutResponse]
        let written = Locked<[[UInt8]]>([])
        /// How many values go out before the next one fails; nil: none fails.
        let failingAfter: Int?

        init(failingAfter: Int? = nil) { self.failingAfter = failingAfter }

        var maximumWriteWithoutResponseLength: Int { 20 }
        func read(timeout: Duration) async throws -> [UInt8] { [] }
        func write(_ value: [UInt8], timeout: Duration) async throws {}
        func writeWithoutResponse(_ value: [UInt8]) async throws {
            try written.withLock { written in
                guard written.count != failingAfter else {
                    throw GATTError.disconnected(device: "the test device", reason: "dropped")
                }
                written.append(value)
            }
        }
        func subscribe(timeout: Duration) async throws -> AsyncThrowingStream<[UInt8], any Error> {
            AsyncThrowingStream { $0.finish() }
        }
    }

    func testBytesAreWrittenAsPacketsWithAShorterLastOne() async throws {
        let characteristic = RecordingCharacteristic()
        let bytes = Array(UInt8(0)..<50)
        var written = 0
        try await characteristic.writeWithoutResponse(bytes[5...], inPacketsOf: 20, written: &written)
        XCTAssertEqual(
            characteristic.written.withLock { $0 }, [Array(5..<25), Array(25..<45), Array(45..<50)])
        XCTAssertEqual(written, 45)
    }

    func testEmptyBytesAreOneEmptyValue() async throws {
        let characteristic = RecordingCharacteristic()
        var written = 0
        try await characteristic.writeWithoutResponse([UInt8]()[...], inPacketsOf: 20, written: &written)
        XCTAssertEqual(characteristic.written.withLock { $0 }, [[]])
        XCTAssertEqual(written, 0)
    }

    func testTheBytesBeforeAFailedPacketCountAsWritten() async {
        let characteristic = RecordingCharacteristic(failingAfter: 2)
        var written = 0
        do {
            try await characteristic.writeWithoutResponse(
                Array(repeating: 7, count: 100)[...], inPacketsOf: 20, written: &written)
            XCTFail("the third packet went out")
        } catch {
            XCTAssertEqual(characteristic.written.withLock { $0.count }, 2)
            XCTAssertEqual(written, 40)
        }
    }
}
