import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// Create rollback, resume after a disconnect, loss on reset, PRN cadence (protocol doc §2.4–2.7).
final class SecureProgressTests: XCTestCase {
    let cp = ScriptedClient.cp
    let pkt = ScriptedClient.pkt
    let address = DeviceIdentifier("C0:DE:00:00:00:10")
    let image = Fixtures.image(count: 20524)

    private func preparedClient(_ central: SimulatedCentral) async throws -> ScriptedClient {
        let client = try await ScriptedClient(central: central, device: address)
        try await client.subscribe(cp)
        let answer = try await client.sendSecureInitPacket(try Fixtures.docInitPacket(for: image))
        XCTAssertEqual(answer, [0x60, 0x04, 0x01])
        return client
    }

    func testCreateRollsBackToTheLastExecutedObject() async throws {
        let central = try SimulatedCentral(devices: [Fixtures.docDevice()])
        let client = try await preparedClient(central)
        let first = try await client.sendSecureImage(Array(image[..<4096]))
        XCTAssertEqual(first, [0x60, 0x04, 0x01])
        _ = try await client.request(cp, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00])
        try await central.linkTime.sleep(for: .milliseconds(400))
        try await client.stream(pkt, image[4096..<5096], payload: 20)
        var selected = try await client.select(2)
        XCTAssertEqual(selected.offset, 5096)
        XCTAssertEqual(selected.crc, CRC32.checksum(image[..<5096]))
        _ = try await client.request(cp, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00])
        selected = try await client.select(2)
        XCTAssertEqual(selected.offset, 4096)
        XCTAssertEqual(selected.crc, CRC32.checksum(image[..<4096]))
    }

    func testProgressSurvivesADisconnectAndTheTransferResumes() async throws {
        let central = try SimulatedCentral(devices: [Fixtures.docDevice()])
        var client = try await preparedClient(central)
        let first = try await client.sendSecureImage(Array(image[..<4096]))
        XCTAssertEqual(first, [0x60, 0x04, 0x01])
        _ = try await client.request(cp, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00])
        try await central.linkTime.sleep(for: .milliseconds(400))
        try await client.stream(pkt, image[4096..<6096], payload: 20)
        await client.peripheral.disconnect()
        let isConnected = await client.peripheral.isConnected
        XCTAssertFalse(isConnected)

        client = try await ScriptedClient(central: central, device: address)
        try await client.subscribe(cp)
        let command = try await client.select(1)
        XCTAssertEqual(command.offset, 70)
        XCTAssertEqual(command.crc, CRC32.checksum(try Fixtures.docInitPacket(for: image)))
        let execute = try await client.request(cp, [0x04])
        XCTAssertEqual(execute, [0x60, 0x04, 0x01])
        let data = try await client.select(2)
        XCTAssertEqual(data.offset, 6096)
        XCTAssertEqual(data.crc, CRC32.checksum(image[..<6096]))
        // Continue the current object from 6096, without Create.
        let final = try await client.sendSecureImage(image, from: 6096)
        XCTAssertEqual(final, [0x60, 0x04, 0x01])
        try await client.peripheral.waitForDisconnection(timeout: .seconds(2))
        XCTAssertEqual(
            central.snapshot(of: address)?.images[.application]?.sha256,
            try Fixtures.sha256(image).hexString())
    }

    func testAbortResetsAndLosesProgress() async throws {
        let central = try SimulatedCentral(devices: [Fixtures.docDevice()])
        var client = try await preparedClient(central)
        let first = try await client.sendSecureImage(Array(image[..<4096]))
        XCTAssertEqual(first, [0x60, 0x04, 0x01])
        try await client.write(cp, [0x0C])
        try await client.peripheral.waitForDisconnection(timeout: .seconds(2))
        // No application: the device comes back in its bootloader, with nothing received.
        client = try await ScriptedClient(central: central, device: address)
        try await client.subscribe(cp)
        let command = try await client.select(1)
        XCTAssertEqual(command.offset, 0)
        let data = try await client.select(2)
        XCTAssertEqual(data.offset, 0)
        XCTAssertEqual(central.snapshot(of: address)?.mode, .bootloader)
    }

    func testPacketReceiptNotificationCadenceRestartsWithEveryCreate() async throws {
        let central = try SimulatedCentral(devices: [Fixtures.docDevice()])
        let client = try await preparedClient(central)
        _ = try await client.request(cp, [0x02, 0x03, 0x00])
        _ = try await client.request(cp, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00])
        try await central.linkTime.sleep(for: .milliseconds(400))
        for packet in 1...10 {
            try await client.writeWithoutResponse(pkt, Array(image[(packet - 1) * 20..<packet * 20]))
        }
        // Three PRNs (after packets 3, 6, 9), then nothing until the checksum response.
        for count in [3, 6, 9] {
            let notification = try await client.next(cp)
            XCTAssertEqual(
                notification,
                Fixtures.hex("60 03 01") + Fixtures.le32(UInt32(count * 20))
                    + Fixtures.le32(CRC32.checksum(image[..<(count * 20)])))
        }
        let checksum = try await client.request(cp, [0x03])
        XCTAssertEqual(Array(checksum.prefix(7)), Fixtures.hex("60 03 01") + Fixtures.le32(200))
        // Create again: two more packets give no PRN, the third does.
        _ = try await client.request(cp, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00])
        for packet in 1...3 {
            try await client.writeWithoutResponse(pkt, Array(image[(packet - 1) * 20..<packet * 20]))
        }
        let notification = try await client.next(cp)
        XCTAssertEqual(Array(notification?.prefix(7) ?? []), Fixtures.hex("60 03 01") + Fixtures.le32(60))
    }
}
