import GATT
import XCTest

@testable import BlueZ

/// The LE commands of the static-address advertiser, byte for byte as the Core specification
/// lays them out (Vol 4 Part E §5.4.1, §7.8.4–7.8.9).
final class HCICommandTests: XCTestCase {
    func testPacketsAreLaidOutAsTheSpecificationSays() throws {
        XCTAssertEqual(HCICommand.leSetAdvertisingEnable(true).packet, [0x01, 0x0A, 0x20, 0x01, 0x01])
        XCTAssertEqual(HCICommand.leSetAdvertisingEnable(false).packet, [0x01, 0x0A, 0x20, 0x01, 0x00])
        let address = try XCTUnwrap(BluetoothAddress("C0:DE:00:00:00:11"))
        XCTAssertEqual(
            HCICommand.leSetRandomAddress(address).packet,
            [0x01, 0x05, 0x20, 0x06, 0x11, 0, 0, 0, 0xDE, 0xC0])
        XCTAssertEqual(
            HCICommand.leSetAdvertisingParameters(interval: 0x00A0).packet,
            [0x01, 0x06, 0x20, 0x0F, 0xA0, 0x00, 0xA0, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x07, 0x00])
        let data: [UInt8] = [0x02, 0x01, 0x06]
        let packet = HCICommand.leSetAdvertisingData(data).packet
        XCTAssertEqual(Array(packet.prefix(8)), [0x01, 0x08, 0x20, 0x20, 0x03, 0x02, 0x01, 0x06])
        XCTAssertEqual(packet.count, 4 + 32)
        XCTAssertTrue(packet.dropFirst(8).allSatisfy { $0 == 0 })
    }
}
