import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// The Legacy bootloader: protocol doc §1.10 trace, refusals, CRC failure and no resume.
final class LegacyTests: XCTestCase {
    let cp = Fixtures.uuids.legacyControlPoint
    let pkt = Fixtures.uuids.legacyPacket
    let address = DeviceIdentifier("C0:DE:00:00:00:10")

    /// `legacy_app_20000_hex.zip`: 20000 bytes, dfu_version 0.5, device type 82, sd_req [0x88].
    private func package() throws -> DFUImage {
        try DFUPackage(
            contentsOf: try Fixtures.file("legacy/legacy_app_20000_hex.zip")
        )
        .images[0]
    }

    private func device(kind: SimulatedDeviceKind = .legacyApp, faults: [SimulatedFault] = [])
        -> SimulatedDeviceConfiguration
    {
        SimulatedDeviceConfiguration(kind: kind, softDeviceID: 0x88, faults: faults, legacyDeviceType: 82)
    }

    private func bootloaderClient(_ central: SimulatedCentral) async throws -> ScriptedClient {
        let client = try await ScriptedClient(central: central, device: address)
        try await client.subscribe(cp)
        return client
    }

    private func expect(_ client: ScriptedClient, _ request: String, _ response: String, line: UInt = #line)
        async throws
    {
        let answer = try await client.request(cp, Fixtures.hex(request))
        XCTAssertEqual(answer.hexString(separator: " "), response.lowercased(), line: line)
    }

    /// Start DFU with the size packet, then the init packet; both must be accepted.
    private func start(_ client: ScriptedClient, image: DFUImage) async throws {
        try await client.write(cp, [0x01, 0x04])
        try await client.writeWithoutResponse(
            pkt, LegacyImageSizes(application: UInt32(image.firmware.count)).encoded)
        let started = try await client.next(cp)
        XCTAssertEqual(started, Fixtures.hex("10 01 01"))
        try await client.write(cp, [0x02, 0x00])
        try await client.stream(pkt, image.initPacket![...], payload: 20)
        let initialized = try await client.request(cp, [0x02, 0x01])
        XCTAssertEqual(initialized, Fixtures.hex("10 02 01"))
    }

    func testTraceOfTheProtocolDoc() async throws {
        let image = try package()
        let central = try SimulatedCentral(devices: [device()])
        let app = try await ScriptedClient(central: central, device: address)
        try await app.subscribe(cp)
        try await app.write(cp, [0x01, 0x04])
        try await app.peripheral.waitForDisconnection(timeout: .seconds(1))

        let client = try await bootloaderClient(central)
        let version = try await client.read(Fixtures.uuids.legacyVersion)
        XCTAssertEqual(version, [0x08, 0x00])
        try await start(client, image: image)
        try await client.write(cp, Fixtures.hex("08 0C 00"))
        try await client.write(cp, [0x03])
        let received = try await client.streamLegacyImage(image.firmware, prn: 12)
        XCTAssertEqual(received, Fixtures.hex("10 03 01"))
        try await expect(client, "04", "10 04 01")
        try await client.write(cp, [0x05])
        try await client.peripheral.waitForDisconnection(timeout: .seconds(1))

        let snapshot = try XCTUnwrap(central.snapshot(of: address))
        XCTAssertEqual(snapshot.mode, .application)
        XCTAssertEqual(snapshot.address, "C0:DE:00:00:00:10")
        XCTAssertEqual(snapshot.images[.application]?.size, 20000)
        XCTAssertEqual(snapshot.images[.application]?.sha256, image.sha256.hexString())
        XCTAssertEqual(snapshot.activations, 1)
        XCTAssertEqual(snapshot.firmwareRevision, "0.0.1")
        let restarted = try await ScriptedClient(central: central, device: address)
        let revision = try await restarted.read(DeviceInformationUUIDs.firmwareRevision)
        XCTAssertEqual(String(decoding: revision, as: UTF8.self), "0.0.1")
    }

    func testRefusals() async throws {
        let image = try package()
        let central = try SimulatedCentral(devices: [device(kind: .legacy)])
        let client = try await bootloaderClient(central)
        try await expect(client, "09", "10 09 03")
        try await expect(client, "03", "10 03 02")
        try await expect(client, "04", "10 04 02")
        try await expect(client, "01", "10 01 06")
        // Size packet of the wrong length, and an application combined with a SoftDevice.
        try await client.write(cp, [0x01, 0x04])
        try await client.writeWithoutResponse(pkt, [0, 0, 0, 0])
        let wrongLength = try await client.next(cp)
        XCTAssertEqual(wrongLength, Fixtures.hex("10 01 03"))
        try await client.write(cp, [0x01, 0x05])
        try await client.writeWithoutResponse(pkt, LegacyImageSizes(softdevice: 4, application: 4).encoded)
        let mixedTypes = try await client.next(cp)
        XCTAssertEqual(mixedTypes, Fixtures.hex("10 01 03"))
        // An init packet for another SoftDevice.
        try await client.write(cp, [0x01, 0x04])
        try await client.writeWithoutResponse(pkt, LegacyImageSizes(application: 20000).encoded)
        let started = try await client.next(cp)
        XCTAssertEqual(started, Fixtures.hex("10 01 01"))
        try await client.write(cp, [0x02, 0x00])
        var wrongSoftDevice = image.initPacket!
        wrongSoftDevice[10] = 0x99
        try await client.stream(pkt, wrongSoftDevice[...], payload: 20)
        try await expect(client, "02 01", "10 02 06")
    }

    func testCorruptImageFailsValidationAndIsNeverActivated() async throws {
        let image = try package()
        let central = try SimulatedCentral(devices: [device()])
        let before = try XCTUnwrap(central.snapshot(of: address))
        let app = try await ScriptedClient(central: central, device: address)
        try await app.subscribe(cp)
        try await app.write(cp, [0x01, 0x04])
        let client = try await bootloaderClient(central)
        try await start(client, image: image)
        try await client.write(cp, [0x03])
        var corrupt = image.firmware
        corrupt[1234] ^= 0xFF
        try await client.stream(pkt, corrupt[...], payload: 20)
        let received = try await client.next(cp)
        XCTAssertEqual(received, Fixtures.hex("10 03 01"))
        try await expect(client, "04", "10 04 05")
        // Nothing to activate: `dfu_image_activate` fails and the bootloader resets instead.
        try await client.write(cp, [0x05])
        try await client.peripheral.waitForDisconnection(timeout: .seconds(1))
        let after = try XCTUnwrap(central.snapshot(of: address))
        XCTAssertEqual(after.mode, .application)
        XCTAssertEqual(after.images, before.images)
        XCTAssertEqual(after.activations, 0)
    }

    func testADroppedLinkLosesTheTransfer() async throws {
        let image = try package()
        let central = try SimulatedCentral(devices: [
            device(kind: .legacy, faults: [.disconnectAt(bytes: 5000)])
        ])
        var client = try await bootloaderClient(central)
        try await start(client, image: image)
        try await client.write(cp, [0x03])
        do {
            try await client.stream(pkt, image.firmware[...], payload: 20)
            XCTFail("the link must drop at 5000 bytes")
        } catch GATTError.disconnected {}
        client = try await bootloaderClient(central)
        try await expect(client, "03", "10 03 02")
        try await expect(client, "07", "10 07 01 00 00 00 00")
        try await start(client, image: image)
        try await client.write(cp, [0x03])
        try await client.stream(pkt, image.firmware[...], payload: 20)
        let received = try await client.next(cp)
        XCTAssertEqual(received, Fixtures.hex("10 03 01"))
        try await expect(client, "04", "10 04 01")
    }

    func testSoftDeviceAndBootloaderComeBackAtAddressPlusOne() async throws {
        let image = try DFUPackage(
            contentsOf: try Fixtures.file("legacy/legacy_sd_bl.zip")
        ).images[0]
        let central = try SimulatedCentral(devices: [device()])
        let app = try await ScriptedClient(central: central, device: address)
        try await app.subscribe(cp)
        try await app.write(cp, [0x01, 0x04])
        let client = try await bootloaderClient(central)
        try await client.write(cp, [0x01, 0x03])
        let sizes = LegacyImageSizes(softdevice: image.sizes.softdevice, bootloader: image.sizes.bootloader)
        try await client.writeWithoutResponse(pkt, sizes.encoded)
        let started = try await client.next(cp)
        XCTAssertEqual(started, Fixtures.hex("10 01 01"))
        try await client.write(cp, [0x02, 0x00])
        try await client.stream(pkt, image.initPacket![...], payload: 20)
        try await expect(client, "02 01", "10 02 01")
        try await client.write(cp, [0x03])
        try await client.stream(pkt, image.firmware[...], payload: 20)
        let received = try await client.next(cp)
        XCTAssertEqual(received, Fixtures.hex("10 03 01"))
        try await expect(client, "04", "10 04 01")
        try await client.write(cp, [0x05])
        try await client.peripheral.waitForDisconnection(timeout: .seconds(1))
        let snapshot = try XCTUnwrap(central.snapshot(of: address))
        XCTAssertEqual(snapshot.mode, .bootloader)
        XCTAssertEqual(snapshot.address, "C0:DE:00:00:00:11")
        XCTAssertEqual(snapshot.name, "DfuTarg")
        XCTAssertEqual(snapshot.images[.softdevice]?.size, 110_592)
        XCTAssertEqual(snapshot.images[.bootloader]?.size, 19252)
        XCTAssertNil(snapshot.images[.application])
    }

    func testTheSHA256LayoutNeedsVersion07() async throws {
        let image = try DFUPackage(
            contentsOf: try Fixtures.file("legacy/legacy_app_dfu_ver_0.7_nordic.zip")
        ).images[0]
        for (minor, expected) in [(UInt8(6), "10 02 06"), (7, "10 02 01")] {
            var configuration = device(kind: .legacy)
            configuration.legacyDFUVersion = LegacyDFUVersion(major: 0, minor: minor)
            configuration.legacyDeviceRevision = 1
            let central = try SimulatedCentral(devices: [configuration])
            let client = try await bootloaderClient(central)
            try await client.write(cp, [0x01, 0x04])
            try await client.writeWithoutResponse(pkt, LegacyImageSizes(application: 6000).encoded)
            _ = try await client.next(cp)
            try await client.write(cp, [0x02, 0x00])
            try await client.stream(pkt, image.initPacket![...], payload: 20)
            try await expect(client, "02 01", expected)
            guard minor == 7 else { continue }
            try await client.write(cp, [0x03])
            try await client.stream(pkt, image.firmware[...], payload: 20)
            _ = try await client.next(cp)
            try await expect(client, "04", "10 04 01")
        }
    }
}
