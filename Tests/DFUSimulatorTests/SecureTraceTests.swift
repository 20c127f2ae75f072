import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// Protocol doc §2.12 step by step, through the GATT protocols, responses byte-exact.
final class SecureTraceTests: XCTestCase {
    let cp = Fixtures.uuids.secureControlPoint
    let pkt = Fixtures.uuids.securePacket
    let address = DeviceIdentifier("C0:DE:00:00:00:10")

    func testInitPacketPhaseMatchesTheDocByteForByte() async throws {
        let central = try SimulatedCentral(devices: [Fixtures.docDevice()])
        let client = try await ScriptedClient(central: central, device: address)
        try await client.subscribe(cp)
        try await sendInitPacket(Fixtures.docInitPacket, client: client)
    }

    func testWholeTraceWithTheDocsInitPacketFailsOnlyAtFinalValidation() async throws {
        // The doc's image is not available: with any other 20524 bytes its hash does not match,
        // so everything goes as in the trace until the last Execute, which must refuse (ext 0x0C).
        let image = Fixtures.image(count: 20524)
        let central = try SimulatedCentral(devices: [Fixtures.docDevice()])
        let client = try await ScriptedClient(central: central, device: address)
        try await client.subscribe(cp)
        try await sendInitPacket(Fixtures.docInitPacket, client: client)
        let final = try await sendImage(image, client: client)
        XCTAssertEqual(final, Fixtures.hex("60 04 0B 0C"))
        let snapshot = try XCTUnwrap(central.snapshot(of: address))
        XCTAssertEqual(snapshot.mode, .bootloader)
        XCTAssertNil(snapshot.images[.application])
        XCTAssertEqual(snapshot.activations, 0)
    }

    func testWholeTraceWithMatchingHashActivatesTheApplication() async throws {
        let image = Fixtures.image(count: 20524)
        let central = try SimulatedCentral(devices: [Fixtures.docDevice()])
        let client = try await ScriptedClient(central: central, device: address)
        try await client.subscribe(cp)
        try await sendInitPacket(try Fixtures.docInitPacket(for: image), client: client)
        let final = try await sendImage(image, client: client)
        XCTAssertEqual(final, Fixtures.hex("60 04 01"))
        try await client.peripheral.waitForDisconnection(timeout: .seconds(2))
        let snapshot = try XCTUnwrap(central.snapshot(of: address))
        XCTAssertEqual(snapshot.mode, .application)
        XCTAssertEqual(snapshot.activations, 1)
        XCTAssertEqual(snapshot.images[.application]?.size, 20524)
        XCTAssertEqual(snapshot.images[.application]?.sha256, try Fixtures.sha256(image).hexString())
        XCTAssertEqual(snapshot.images[.application]?.version, 0)
        // Entered without bond data, the bootloader was at address + 1 of the application.
        XCTAssertEqual(snapshot.address, "C0:DE:00:00:00:0F")
        XCTAssertEqual(snapshot.firmwareRevision, "0.0.0")
    }

    private func sendInitPacket(_ packet: [UInt8], client: ScriptedClient) async throws {
        let crc = CRC32.checksum(packet)
        try await expect(client, "06 01", "60 06 01 00 01 00 00 00 00 00 00 00 00 00 00")
        try await expect(client, "02 00 00", "60 02 01")
        try await expect(client, "01 01 46 00 00 00", "60 01 01")
        try await client.stream(pkt, packet[...], payload: 20)
        let checksum = try await client.request(cp, Fixtures.hex("03"))
        XCTAssertEqual(checksum, Fixtures.hex("60 03 01 46 00 00 00") + Fixtures.le32(crc))
        if packet == Fixtures.docInitPacket {
            XCTAssertEqual(checksum, Fixtures.hex("60 03 01 46 00 00 00 E3 15 FC 82"))
        }
        try await expect(client, "04", "60 04 01")
        try await expect(client, "02 0C 00", "60 02 01")
        try await expect(client, "06 02", "60 06 01 00 10 00 00 00 00 00 00 00 00 00 00")
    }

    /// Sends the image in 4096-byte objects with PRN 12 and 20-byte packets, checking every PRN
    /// and checksum; returns the final Execute's response.
    private func sendImage(_ image: [UInt8], client: ScriptedClient) async throws -> [UInt8] {
        var offset = 0
        var final: [UInt8] = []
        while offset < image.count {
            let size = min(4096, image.count - offset)
            let create = try await client.request(cp, [0x01, 0x02] + Fixtures.le32(UInt32(size)))
            XCTAssertEqual(create, Fixtures.hex("60 01 01"))
            try await client.central.linkTime.sleep(for: .milliseconds(400))
            var packets = 0
            var sent = offset
            while sent < offset + size {
                let end = min(sent + 20, offset + size)
                try await client.writeWithoutResponse(pkt, Array(image[sent..<end]))
                sent = end
                packets += 1
                if packets % 12 == 0 {
                    let prn = try await client.next(cp)
                    XCTAssertEqual(
                        prn,
                        Fixtures.hex("60 03 01") + Fixtures.le32(UInt32(sent))
                            + Fixtures.le32(CRC32.checksum(image[..<sent])))
                }
            }
            let checksum = try await client.request(cp, [0x03])
            XCTAssertEqual(
                checksum,
                Fixtures.hex("60 03 01") + Fixtures.le32(UInt32(sent))
                    + Fixtures.le32(CRC32.checksum(image[..<sent])))
            final = try await client.request(cp, [0x04])
            offset = sent
            if offset < image.count { XCTAssertEqual(final, Fixtures.hex("60 04 01")) }
        }
        return final
    }

    private func expect(_ client: ScriptedClient, _ request: String, _ response: String, line: UInt = #line)
        async throws
    {
        let answer = try await client.request(cp, Fixtures.hex(request))
        XCTAssertEqual(
            answer.hexString(separator: " "), Fixtures.hex(response).hexString(separator: " "), line: line)
    }
}
