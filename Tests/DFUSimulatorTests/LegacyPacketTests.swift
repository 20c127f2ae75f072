import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// Legacy image packets as SDK 11's `app_data_process` handles them: PRNs only while more data is
/// expected, whole words only, no more than announced.
final class LegacyPacketTests: XCTestCase {
    let cp = Fixtures.uuids.legacyControlPoint
    let pkt = Fixtures.uuids.legacyPacket

    /// A Legacy bootloader ready for image data: 20000-byte application (1000 packets of 20),
    /// PRN `prn`, Receive Firmware Image sent.
    private func receivingClient(prn: UInt16) async throws -> (ScriptedClient, DFUImage) {
        let image = try DFUPackage(contentsOf: try Fixtures.file("legacy/legacy_app_20000_hex.zip")).images[0]
        let central = try SimulatedCentral(devices: [
            SimulatedDeviceConfiguration(kind: .legacy, softDeviceID: 0x88, legacyDeviceType: 82)
        ])
        let client = try await ScriptedClient(central: central, device: DeviceIdentifier("C0:DE:00:00:00:10"))
        try await client.subscribe(cp)
        try await client.write(cp, [0x01, 0x04])
        try await client.writeWithoutResponse(pkt, LegacyImageSizes(application: 20000).encoded)
        let started = try await client.next(cp)
        XCTAssertEqual(started, Fixtures.hex("10 01 01"))
        try await client.write(cp, [0x02, 0x00])
        try await client.stream(pkt, image.initPacket![...], payload: 20)
        let initialized = try await client.request(cp, [0x02, 0x01])
        XCTAssertEqual(initialized, Fixtures.hex("10 02 01"))
        try await client.write(cp, [0x08, UInt8(prn & 0xFF), UInt8(prn >> 8)])
        try await client.write(cp, [0x03])
        return (client, image)
    }

    func testThePacketThatCompletesTheImageGetsTheResponseAndNoReceipt() async throws {
        // 1000 packets: an exact multiple of 10, 8 and 1.
        for prn in [10, 8, 1] {
            let (client, image) = try await receivingClient(prn: UInt16(prn))
            let final = try await client.streamLegacyImage(image.firmware, prn: prn)
            XCTAssertEqual(final, Fixtures.hex("10 03 01"), "PRN \(prn)")
            let validated = try await client.request(cp, [0x04])
            XCTAssertEqual(validated, Fixtures.hex("10 04 01"), "PRN \(prn): nothing else was queued")
        }
    }

    func testACountThatIsNotAMultipleStillEndsWithTheResponse() async throws {
        let (client, image) = try await receivingClient(prn: 12)
        let final = try await client.streamLegacyImage(image.firmware, prn: 12)
        XCTAssertEqual(final, Fixtures.hex("10 03 01"))
    }

    func testPacketsMustBeWholeWordsAndNotExceedTheImage() async throws {
        let (client, image) = try await receivingClient(prn: 0)
        // A packet that is not a multiple of 4 is refused and ignored; the transfer goes on.
        try await client.writeWithoutResponse(pkt, Array(image.firmware[0..<18]))
        let refused = try await client.next(cp)
        XCTAssertEqual(refused, Fixtures.hex("10 03 03"))
        let size = try await client.request(cp, [0x07])
        XCTAssertEqual(size, Fixtures.hex("10 07 01 00 00 00 00"))
        try await client.stream(pkt, image.firmware[...], payload: 20)
        let complete = try await client.next(cp)
        XCTAssertEqual(complete, Fixtures.hex("10 03 01"))
        // More than announced poisons the transfer: only a reset helps.
        try await client.writeWithoutResponse(pkt, [0, 0, 0, 0])
        let overrun = try await client.next(cp)
        XCTAssertEqual(overrun, Fixtures.hex("10 03 04"))
        let validate = try await client.request(cp, [0x04])
        XCTAssertEqual(validate, Fixtures.hex("10 04 02"))
        let start = try await client.request(cp, [0x01, 0x04])
        XCTAssertEqual(start, Fixtures.hex("10 01 02"))
    }

    func testAnInitPacketLargerThanTheBufferIsRefused() async throws {
        let central = try SimulatedCentral(devices: [SimulatedDeviceConfiguration(kind: .legacy)])
        let client = try await ScriptedClient(central: central, device: DeviceIdentifier("C0:DE:00:00:00:10"))
        try await client.subscribe(cp)
        try await client.write(cp, [0x01, 0x04])
        try await client.writeWithoutResponse(pkt, LegacyImageSizes(application: 4096).encoded)
        _ = try await client.next(cp)
        try await client.write(cp, [0x02, 0x00])
        try await client.stream(pkt, [UInt8](repeating: 0, count: 120)[...], payload: 20)
        try await client.writeWithoutResponse(pkt, [UInt8](repeating: 0, count: 12))
        let refused = try await client.next(cp)
        XCTAssertEqual(refused, Fixtures.hex("10 02 06"))
    }

    func testActivateWithoutAValidatedImageResetsTheDevice() async throws {
        let (client, _) = try await receivingClient(prn: 0)
        try await client.write(cp, [0x05])
        try await client.peripheral.waitForDisconnection(timeout: .seconds(1))
        let snapshot = try XCTUnwrap(client.central.snapshot(of: DeviceIdentifier("C0:DE:00:00:00:10")))
        XCTAssertEqual(snapshot.activations, 0)
        XCTAssertEqual(snapshot.mode, .bootloader)
    }
}
