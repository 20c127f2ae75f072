import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// Only a complete, validated image is ever installed; multi-part updates come back as the
/// protocol doc says (§4, §2.9).
final class ActivationTests: XCTestCase {
    let cp = ScriptedClient.cp
    let pkt = ScriptedClient.pkt
    let uuids = Fixtures.uuids
    let address = DeviceIdentifier("C0:DE:00:00:00:10")
    let bootloaderAddress = DeviceIdentifier("C0:DE:00:00:00:11")

    /// A `secure-app` device, jumped into its bootloader, with a client subscribed there.
    private func bootloader(_ central: SimulatedCentral) async throws -> ScriptedClient {
        let app = try await ScriptedClient(central: central, device: address)
        try await app.subscribe(uuids.buttonlessWithoutBonds)
        _ = try await app.request(uuids.buttonlessWithoutBonds, [0x01])
        let client = try await ScriptedClient(central: central, device: bootloaderAddress)
        try await client.subscribe(cp)
        return client
    }

    private func appDevice() -> SimulatedDeviceConfiguration {
        SimulatedDeviceConfiguration(kind: .secureApp, firmwareVersion: "0.0.1", softDeviceID: 0x8C)
    }

    /// After any failed or abandoned transfer the device boots its old application, unchanged.
    private func assertOldApplicationRuns(
        _ central: SimulatedCentral, before: DeviceSnapshot, line: UInt = #line
    )
        async throws
    {
        let after = try XCTUnwrap(central.snapshot(of: address))
        XCTAssertEqual(after.images, before.images, line: line)
        XCTAssertEqual(after.activations, 0, line: line)
        XCTAssertEqual(after.mode, .application, line: line)
        XCTAssertEqual(after.address, "C0:DE:00:00:00:10", line: line)
        let app = try await ScriptedClient(central: central, device: address)
        let revision = try await app.read(DeviceInformationUUIDs.firmwareRevision)
        XCTAssertEqual(String(decoding: revision, as: UTF8.self), "0.0.1", line: line)
    }

    func testACorruptImageIsRefusedAndTheOldApplicationStays() async throws {
        let image = Fixtures.image(count: 12000)
        let central = try SimulatedCentral(devices: [appDevice()])
        let before = try XCTUnwrap(central.snapshot(of: address))
        let client = try await bootloader(central)
        let accepted = try await client.sendSecureInitPacket(try Fixtures.initPacket(for: image, version: 2))
        XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
        var corrupt = image
        corrupt[11999] ^= 0x01
        let final = try await client.sendSecureImage(corrupt)
        XCTAssertEqual(final, Fixtures.hex("60 04 0B 0C"))
        XCTAssertEqual(central.snapshot(of: address)?.mode, .bootloader)
        try await client.write(cp, [0x0C])
        try await client.peripheral.waitForDisconnection(timeout: .seconds(1))
        try await assertOldApplicationRuns(central, before: before)
    }

    func testAnInterruptedTransferIsNeverActivated() async throws {
        let image = Fixtures.image(count: 12000)
        let central = try SimulatedCentral(devices: [appDevice()])
        let before = try XCTUnwrap(central.snapshot(of: address))
        var client = try await bootloader(central)
        let accepted = try await client.sendSecureInitPacket(try Fixtures.initPacket(for: image, version: 2))
        XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
        _ = try await client.sendSecureImage(Array(image[..<8192]))
        await client.peripheral.disconnect()
        XCTAssertEqual(central.snapshot(of: address)?.mode, .bootloader)
        XCTAssertEqual(central.snapshot(of: address)?.images, before.images)
        // A client that resumes but executes early is refused; then it gives up with Abort.
        client = try await ScriptedClient(central: central, device: bootloaderAddress)
        try await client.subscribe(cp)
        _ = try await client.select(1)
        let early = try await client.request(cp, [0x04])
        XCTAssertEqual(early, [0x60, 0x04, 0x01])  // the command object, executed again
        _ = try await client.request(cp, [0x06, 0x02])
        // Nothing since the last executed object: acknowledged again (`on_data_obj_execute_request`).
        let executeAgain = try await client.request(cp, [0x04])
        XCTAssertEqual(executeAgain, Fixtures.hex("60 04 01"))
        // The last object: 3808 bytes.
        let created = try await client.request(cp, [0x01, 0x02, 0xE0, 0x0E, 0x00, 0x00])
        XCTAssertEqual(created, Fixtures.hex("60 01 01"))
        try await client.central.linkTime.sleep(for: .milliseconds(100))
        try await client.writeWithoutResponse(pkt, Array(image[8192..<8212]))
        let executeIncomplete = try await client.request(cp, [0x04])
        XCTAssertEqual(executeIncomplete, Fixtures.hex("60 04 08"))
        try await client.write(cp, [0x0C])
        try await client.peripheral.waitForDisconnection(timeout: .seconds(1))
        try await assertOldApplicationRuns(central, before: before)
    }

    func testADowngradeIsRefusedAndTheOldApplicationStays() async throws {
        let image = Fixtures.image(count: 4096)
        var configuration = appDevice()
        configuration.settingsApplicationVersion = 10000
        let central = try SimulatedCentral(devices: [configuration])
        let client = try await bootloader(central)
        let refused = try await client.sendSecureInitPacket(
            try Fixtures.initPacket(for: image, version: 9999))
        XCTAssertEqual(refused, Fixtures.hex("60 04 0B 05"))
        XCTAssertEqual(central.snapshot(of: address)?.activations, 0)
    }

    func testAnUpdateReportsTheNewVersionInDIS() async throws {
        let image = Fixtures.image(count: 12000)
        let central = try SimulatedCentral(devices: [appDevice()])
        let client = try await bootloader(central)
        let accepted = try await client.sendSecureInitPacket(
            try Fixtures.initPacket(for: image, version: 20731))
        XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
        let final = try await client.sendSecureImage(image, payload: 244)
        XCTAssertEqual(final, [0x60, 0x04, 0x01])
        try await client.peripheral.waitForDisconnection(timeout: .seconds(1))
        let snapshot = try XCTUnwrap(central.snapshot(of: address))
        XCTAssertEqual(snapshot.mode, .application)
        XCTAssertEqual(snapshot.address, "C0:DE:00:00:00:10")
        XCTAssertEqual(snapshot.images[.application]?.version, 20731)
        XCTAssertEqual(snapshot.activations, 1)
        let app = try await ScriptedClient(central: central, device: address)
        let revision = try await app.read(DeviceInformationUUIDs.firmwareRevision)
        XCTAssertEqual(String(decoding: revision, as: UTF8.self), "2.7.31")
    }

    func testSoftDeviceBootloaderThenApplication() async throws {
        let package = try DFUPackage(
            contentsOf: try Fixtures.file("secure/secure_sd_bl_app_signed.zip"))
        let key = try DFUPublicKey(
            contentsOf: try Fixtures.file("keys/dfu_test_key_public.pem"))
        let central = try SimulatedCentral(devices: [
            SimulatedDeviceConfiguration(kind: .secureApp, firmwareVersion: "0.0.1", publicKey: key)
        ])
        var client = try await bootloader(central)
        for (index, image) in package.images.enumerated() {
            if index > 0 {
                // After SD+BL the application is gone: the bootloader is back at address + 1.
                let between = try XCTUnwrap(central.snapshot(of: address))
                XCTAssertEqual(between.mode, .bootloader)
                XCTAssertEqual(between.address, "C0:DE:00:00:00:11")
                XCTAssertNil(between.images[.application])
                client = try await ScriptedClient(central: central, device: bootloaderAddress)
                try await client.subscribe(cp)
            }
            let accepted = try await client.sendSecureInitPacket(image.initPacket!, payload: 244)
            XCTAssertEqual(accepted, [0x60, 0x04, 0x01], "\(image.kind)")
            let final = try await client.sendSecureImage(image.firmware, payload: 244)
            XCTAssertEqual(final, [0x60, 0x04, 0x01], "\(image.kind)")
            try await client.peripheral.waitForDisconnection(timeout: .seconds(1))
        }
        let snapshot = try XCTUnwrap(central.snapshot(of: address))
        XCTAssertEqual(snapshot.mode, .application)
        XCTAssertEqual(snapshot.activations, 2)
        let systemImage = package.images[0]
        let sdSize = Int(try XCTUnwrap(systemImage.sdSize))
        XCTAssertEqual(snapshot.images[.softdevice]?.size, sdSize)
        XCTAssertEqual(snapshot.images[.bootloader]?.size, systemImage.firmware.count - sdSize)
        XCTAssertEqual(snapshot.images[.bootloader]?.version, 2)
        XCTAssertEqual(snapshot.images[.application]?.sha256, package.images[1].sha256.hexString())
        XCTAssertEqual(snapshot.images[.application]?.version, 5)
        XCTAssertEqual(snapshot.firmwareRevision, "0.0.5")
    }
}
