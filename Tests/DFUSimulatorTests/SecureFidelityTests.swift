import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// Secure bootloader behaviours taken from the SDK 15–17 sources (docs/simulator.md): object
/// bookkeeping, PRN counting and the packet buffers that decide when packets are lost.
final class SecureFidelityTests: XCTestCase {
    let cp = ScriptedClient.cp
    let pkt = ScriptedClient.pkt

    private func client(_ configuration: SimulatedDeviceConfiguration = Fixtures.docDevice()) async throws
        -> ScriptedClient
    {
        try await ScriptedClient.secure(configuration)
    }

    private func assertResponse(
        _ client: ScriptedClient, _ request: [UInt8], _ expected: String, line: UInt = #line
    ) async throws {
        let answer = try await client.request(cp, request)
        XCTAssertEqual(answer.hexString(separator: " "), expected.lowercased(), line: line)
    }

    func testPacketBuffersFollowTheBootloadersMTU() {
        var timing = SimulationTiming()
        XCTAssertEqual(timing.packetBuffers(mtu: 247), 17)
        XCTAssertEqual(timing.packetBuffers(mtu: 23), 205)
        XCTAssertEqual(timing.packetBuffers(mtu: 517), 9)
        XCTAssertEqual(timing.packetBuffers(mtu: 185), 23)
        timing.packetBufferOverride = 8
        XCTAssertEqual(timing.packetBuffers(mtu: 247), 8)
    }

    func testARefusedInitCommandIsForgotten() async throws {
        let client = try await client(Fixtures.docDevice(kind: .secure))
        var badHash = Fixtures.docInitPacket
        badHash[Fixtures.docInitPacketHashRange.lowerBound - 3] = 0x02  // hash type SHA-128
        let accepted = try await client.sendSecureInitPacket(badHash)
        XCTAssertEqual(accepted, [0x60, 0x04, 0x0B, 0x09])
        try await assertResponse(client, [0x06, 0x01], "60 06 01 00 01 00 00 00 00 00 00 00 00 00 00")
        try await assertResponse(client, [0x04], "60 04 05")
    }

    func testACommandWriteBeforeCreateIsAnInvalidParameter() async throws {
        let client = try await client()
        try await assertResponse(client, [0x02, 0x01, 0x00], "60 02 01")
        try await client.writeWithoutResponse(pkt, [1, 2, 3, 4])
        let receipt = try await client.next(cp)
        XCTAssertEqual(receipt, [0x60, 0x03, 0x03])
    }

    func testAnImageTooLargeForTheBankIsInsufficientResources() async throws {
        var configuration = Fixtures.docDevice()
        configuration.bankCapacity = 16384
        let client = try await client(configuration)
        let answer = try await client.sendSecureInitPacket(
            try Fixtures.docInitPacket(for: Fixtures.image(count: 20524)))
        XCTAssertEqual(answer, [0x60, 0x04, 0x04])
    }

    func testARepeatedDataExecuteSucceedsAndKeepsProgress() async throws {
        let image = Fixtures.image(count: 20524)
        let client = try await client()
        let accepted = try await client.sendSecureInitPacket(try Fixtures.docInitPacket(for: image))
        XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
        let executed = try await client.sendSecureImage(Array(image[..<4096]))
        XCTAssertEqual(executed, [0x60, 0x04, 0x01])
        try await assertResponse(client, [0x04], "60 04 01")
        let selected = try await client.select(0x02)
        XCTAssertEqual(selected.offset, 4096)
    }

    func testCreateRestartsThePacketReceiptCountAndSelectDoesNot() async throws {
        let image = Fixtures.image(count: 20524)
        let client = try await client()
        let accepted = try await client.sendSecureInitPacket(try Fixtures.docInitPacket(for: image))
        XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
        try await client.central.linkTime.sleep(for: .seconds(1))
        try await assertResponse(client, [0x02, 0x03, 0x00], "60 02 01")
        try await assertResponse(client, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00], "60 01 01")
        try await client.central.linkTime.sleep(for: .seconds(1))
        try await client.stream(pkt, image[0..<40], payload: 20)
        try await assertResponse(client, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00], "60 01 01")
        try await client.central.linkTime.sleep(for: .seconds(1))
        try await client.stream(pkt, image[0..<40], payload: 20)
        // Two writes since Create: the next request's answer is the first thing that arrives.
        try await assertResponse(
            client, [0x06, 0x02], "60 06 01 00 10 00 00 28 00 00 00 " + crc(image[0..<40]))
        try await client.writeWithoutResponse(pkt, Array(image[40..<60]))
        let receipt = try await client.next(cp)
        XCTAssertEqual(receipt?.hexString(separator: " "), "60 03 01 3c 00 00 00 " + crc(image[0..<60]))
    }

    func testThePacketThatFindsTheFlashQueueFullIsLostButCounted() async throws {
        let image = Fixtures.image(count: 20524)
        let client = try await client(Fixtures.docDevice(mtu: 247))
        let accepted = try await client.sendSecureInitPacket(try Fixtures.docInitPacket(for: image))
        XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
        try await client.central.linkTime.sleep(for: .seconds(1))
        try await assertResponse(client, [0x02, 0x10, 0x00], "60 02 01")
        try await assertResponse(client, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00], "60 01 01")
        // 16 packets arrive during the 85 ms erase: the erase and 15 writes fill the queue of 16.
        try await client.stream(pkt, image[0..<(16 * 244)], payload: 244)
        let receipt = try await client.next(cp)
        XCTAssertEqual(receipt?.hexString(separator: " "), "60 03 01 00 00 00 00 00 00 00 00")
        let checksum = try await client.request(cp, [0x03])
        XCTAssertEqual(
            checksum,
            [0x60, 0x03, 0x01] + Fixtures.le32(15 * 244)
                + Fixtures.le32(CRC32.checksum(image[0..<(15 * 244)])))
    }

    func testAWriteWithoutAFreeBufferIsLostAndNotCounted() async throws {
        let image = Fixtures.image(count: 20524)
        var configuration = Fixtures.docDevice(mtu: 247)
        configuration.timing.packetBufferOverride = 4
        let client = try await client(configuration)
        let accepted = try await client.sendSecureInitPacket(try Fixtures.docInitPacket(for: image))
        XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
        try await client.central.linkTime.sleep(for: .seconds(1))
        try await assertResponse(client, [0x02, 0x05, 0x00], "60 02 01")
        try await assertResponse(client, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00], "60 01 01")
        // Four writes take the four buffers while the page is erased; the fifth is dropped unseen.
        try await client.stream(pkt, image[0..<(5 * 244)], payload: 244)
        try await client.central.linkTime.sleep(for: .milliseconds(200))
        try await client.writeWithoutResponse(pkt, Array(image[(5 * 244)..<(6 * 244)]))
        let receipt = try await client.next(cp)
        var crc = CRC32()
        crc.update(image[0..<(4 * 244)])
        crc.update(image[(5 * 244)..<(6 * 244)])
        XCTAssertEqual(receipt, [0x60, 0x03, 0x01] + Fixtures.le32(5 * 244) + Fixtures.le32(crc.value))
    }

    private func crc(_ bytes: ArraySlice<UInt8>) -> String {
        Fixtures.le32(CRC32.checksum(bytes)).hexString(separator: " ")
    }
}
