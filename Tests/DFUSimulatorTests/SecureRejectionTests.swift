import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// Every refusal of the Secure bootloader, with its exact response bytes (protocol doc §2.3–2.5).
final class SecureRejectionTests: XCTestCase {
    let cp = ScriptedClient.cp
    let pkt = ScriptedClient.pkt

    private func client(_ configuration: SimulatedDeviceConfiguration = Fixtures.docDevice()) async throws
        -> ScriptedClient
    {
        try await ScriptedClient.secure(configuration)
    }

    private func expect(_ answer: [UInt8], _ expected: [UInt8], line: UInt = #line) {
        XCTAssertEqual(answer.hexString(separator: " "), expected.hexString(separator: " "), line: line)
    }

    private func assertResponse(
        _ client: ScriptedClient, _ request: [UInt8], _ expected: String, line: UInt = #line
    ) async throws {
        let answer = try await client.request(cp, request)
        XCTAssertEqual(answer.hexString(separator: " "), expected.lowercased(), line: line)
    }

    func testControlPointNeedsNotificationsFirst() async throws {
        let central = try SimulatedCentral(devices: [Fixtures.docDevice()])
        let client = try await ScriptedClient(central: central, device: DeviceIdentifier("C0:DE:00:00:00:10"))
        do {
            try await client.write(cp, [0x06, 0x01])
            XCTFail("a control point write without notifications enabled must be refused")
        } catch let error as GATTError {
            guard case .operationFailed(_, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("0xFD"), reason)
        }
    }

    func testMalformedAndUnknownRequests() async throws {
        let client = try await client()
        try await assertResponse(client, [0x05], "60 05 02")
        // An object type other than command or data is Invalid Object (`nrf_dfu_obj_op`).
        try await assertResponse(client, [0x06, 0x03], "60 06 05")
        try await assertResponse(client, [0x01, 0x01, 0x10], "60 01 03")
        try await assertResponse(client, [0x00], "60 00 01")
    }

    func testCommandObjectLimits() async throws {
        let client = try await client(SimulatedDeviceConfiguration(kind: .secure))
        try await assertResponse(client, [0x06, 0x01], "60 06 01 00 02 00 00 00 00 00 00 00 00 00 00")
        try await assertResponse(client, [0x01, 0x01, 0x00, 0x00, 0x00, 0x00], "60 01 03")
        try await assertResponse(client, [0x01, 0x01, 0x01, 0x02, 0x00, 0x00], "60 01 04")
        // Nothing announced, nothing received: the empty command does not decode.
        try await assertResponse(client, [0x04], "60 04 05")
        try await assertResponse(client, [0x01, 0x01, 0x46, 0x00, 0x00, 0x00], "60 01 01")
        try await client.stream(pkt, Fixtures.docInitPacket[..<40], payload: 20)
        try await assertResponse(client, [0x04], "60 04 08")
    }

    func testDataObjectNeedsAnAcceptedInitCommand() async throws {
        let client = try await client()
        try await assertResponse(client, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00], "60 01 08")
        try await assertResponse(client, [0x06, 0x02], "60 06 01 00 10 00 00 00 00 00 00 00 00 00 00")
    }

    func testDataObjectLimits() async throws {
        let image = Fixtures.image(count: 20524)
        let client = try await client()
        expect(
            try await client.sendSecureInitPacket(try Fixtures.docInitPacket(for: image)), [0x60, 0x04, 0x01])
        try await assertResponse(client, [0x01, 0x02, 0x00, 0x00, 0x00, 0x00], "60 01 03")
        // Page alignment is checked before the maximum size (`on_data_obj_create_request`).
        try await assertResponse(client, [0x01, 0x02, 0x01, 0x10, 0x00, 0x00], "60 01 03")
        try await assertResponse(client, [0x01, 0x02, 0x00, 0x20, 0x00, 0x00], "60 01 04")
        // Not a whole page and not the last object.
        try await assertResponse(client, [0x01, 0x02, 0x00, 0x08, 0x00, 0x00], "60 01 03")
        // Larger than what is left of the image.
        expect(try await client.sendSecureImage(Array(image[..<20480])), [0x60, 0x04, 0x01])
        try await assertResponse(client, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00], "60 01 08")
        // Execute of an incomplete object.
        try await assertResponse(client, [0x01, 0x02, 0x2C, 0x00, 0x00, 0x00], "60 01 01")
        try await client.writeWithoutResponse(pkt, Array(image[20480..<20500]))
        try await assertResponse(client, [0x04], "60 04 08")
    }

    func testWriteBeyondTheObjectIsReportedOnlyWhenAPacketReceiptIsDue() async throws {
        let image = Fixtures.image(count: 20524)
        let client = try await client()
        expect(
            try await client.sendSecureInitPacket(try Fixtures.docInitPacket(for: image)), [0x60, 0x04, 0x01])
        expect(try await client.sendSecureImage(Array(image[..<20480])), [0x60, 0x04, 0x01])
        try await assertResponse(client, [0x01, 0x02, 0x2C, 0x00, 0x00, 0x00], "60 01 01")
        try await client.stream(pkt, image[20480...], payload: 20)
        // PRN is 0: the excess write is silent. With PRN 1 it is answered `60 03 03`.
        try await assertResponse(client, [0x02, 0x01, 0x00], "60 02 01")
        try await client.writeWithoutResponse(pkt, [1, 2, 3, 4])
        let notification = try await client.next(cp)
        XCTAssertEqual(notification, [0x60, 0x03, 0x03])
    }

    func testInitCommandChecks() async throws {
        let image = Fixtures.image(count: 20524)
        let good = try Fixtures.docInitPacket(for: image)
        var externalApplication = good
        externalApplication[15] = 0x04  // type = EXTERNAL_APPLICATION
        var badHashType = good
        badHashType[27] = 0x01  // hash_type = CRC
        let cases: [(String, SimulatedDeviceConfiguration, [UInt8], String)] = [
            ("parse failure", Fixtures.docDevice(), [0xFF, 0xFF, 0xFF, 0xFF], "60 04 05"),
            ("wrong type", Fixtures.docDevice(), externalApplication, "60 04 0b 04"),
            ("hash type", Fixtures.docDevice(), badHashType, "60 04 0b 09"),
            (
                "hw version",
                SimulatedDeviceConfiguration(
                    kind: .secure, firmwareVersion: "0.0.0", hardwareVersion: 53, softDeviceID: 0x8C),
                good, "60 04 0b 06"
            ),
            (
                "sd_req", SimulatedDeviceConfiguration(kind: .secure, firmwareVersion: "0.0.0"), good,
                "60 04 0b 07"
            ),
            (
                "downgrade",
                {
                    var device = SimulatedDeviceConfiguration(kind: .secure, softDeviceID: 0x8C)
                    device.settingsApplicationVersion = 1
                    return device
                }(), good, "60 04 0b 05"
            ),
        ]
        for (name, configuration, packet, expected) in cases {
            let client = try await client(configuration)
            let answer = try await client.sendSecureInitPacket(packet)
            XCTAssertEqual(answer.hexString(separator: " "), expected, name)
            // A refused command leaves no data object to create.
            try await assertResponse(client, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00], "60 01 08")
        }
    }

    func testSignatureChecks() async throws {
        let package = try DFUPackage(
            contentsOf: try Fixtures.file("secure/secure_app_20_hex_signed.zip"))
        let key = try DFUPublicKey(
            contentsOf: try Fixtures.file("keys/dfu_test_key_public.pem"))
        let signed = try XCTUnwrap(package.images[0].initPacket)
        var tampered = signed
        tampered[tampered.count - 1] ^= 0x01
        var device = SimulatedDeviceConfiguration(kind: .secure, firmwareVersion: "0.0.1", publicKey: key)

        var client = try await client(device)
        expect(try await client.sendSecureInitPacket(signed), [0x60, 0x04, 0x01])
        expect(try await client.sendSecureImage(package.images[0].firmware), [0x60, 0x04, 0x01])

        client = try await self.client(device)
        expect(try await client.sendSecureInitPacket(tampered), [0x60, 0x04, 0x05])

        client = try await self.client(device)
        let unsigned = try DFUPackage(
            contentsOf: try Fixtures.file(
                "secure/secure_app_4095_hex_unsigned_multi_sdreq.zip"))
        expect(
            try await client.sendSecureInitPacket(unsigned.images[0].initPacket!), [0x60, 0x04, 0x0B, 0x08])

        // Without a key the bootloader does not check signatures at all.
        device.publicKey = nil
        client = try await self.client(device)
        expect(try await client.sendSecureInitPacket(tampered), [0x60, 0x04, 0x01])
    }

    func testExecutingTheSameInitCommandAgainKeepsDataProgress() async throws {
        let image = Fixtures.image(count: 20524)
        let packet = try Fixtures.docInitPacket(for: image)
        let client = try await client()
        expect(try await client.sendSecureInitPacket(packet), [0x60, 0x04, 0x01])
        expect(try await client.sendSecureImage(Array(image[..<4096])), [0x60, 0x04, 0x01])
        try await assertResponse(
            client, [0x06, 0x01],
            "60 06 01 00 01 00 00 46 00 00 00" + " "
                + Fixtures.le32(CRC32.checksum(packet)).hexString(separator: " "))
        try await assertResponse(client, [0x04], "60 04 01")
        let data = try await client.select(2)
        XCTAssertEqual(data.offset, 4096)
        XCTAssertEqual(data.crc, CRC32.checksum(image[..<4096]))
    }
}
