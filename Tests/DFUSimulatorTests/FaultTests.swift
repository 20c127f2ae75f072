import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// The `--sim-fault` specs, each doing what the CLI contract says.
final class FaultTests: XCTestCase {
    let cp = ScriptedClient.cp
    let pkt = ScriptedClient.pkt
    let address = DeviceIdentifier("C0:DE:00:00:00:10")

    private func client(_ central: SimulatedCentral) async throws -> ScriptedClient {
        let client = try await ScriptedClient(central: central, device: address)
        try await client.subscribe(cp)
        return client
    }

    func testRejectConnectRefusesTheFirstAttempts() async throws {
        let central = try SimulatedCentral(devices: [Fixtures.docDevice(faults: [.rejectConnect(2)])])
        for _ in 0..<2 {
            do {
                _ = try await central.connect(address, timeout: .seconds(1))
                XCTFail("the first two attempts must fail")
            } catch GATTError.connectionFailed(_, let reason) {
                XCTAssertTrue(reason.contains("reject-connect"))
            }
        }
        _ = try await central.connect(address, timeout: .seconds(1))
        XCTAssertEqual(central.snapshot(of: address)?.connectionAttempts, 3)
    }

    func testClearedFaultsStopButTheDeviceKeepsItsCounters() async throws {
        let central = try SimulatedCentral(devices: [Fixtures.docDevice(faults: [.rejectConnect(5)])])
        do {
            _ = try await central.connect(address, timeout: .seconds(1))
            XCTFail("reject-connect refuses the first attempt")
        } catch GATTError.connectionFailed {}
        XCTAssertTrue(central.clearFaults(of: address))
        XCTAssertFalse(central.clearFaults(of: DeviceIdentifier("C0:DE:00:00:00:99")))
        _ = try await central.connect(address, timeout: .seconds(1))
        XCTAssertEqual(central.snapshot(of: address)?.connectionAttempts, 2)
    }

    func testDropNotificationLosesExactlyTheNthNotification() async throws {
        let central = try SimulatedCentral(devices: [Fixtures.docDevice(faults: [.dropNotification(2)])])
        let client = try await client(central)
        let first = try await client.request(cp, [0x02, 0x00, 0x00])
        XCTAssertEqual(first, Fixtures.hex("60 02 01"))
        try await client.write(cp, [0x02, 0x01, 0x00])  // its answer is the lost one
        let third = try await client.request(cp, [0x06, 0x02])
        XCTAssertEqual(third, Fixtures.hex("60 06 01 00 10 00 00 00 00 00 00 00 00 00 00"))
    }

    func testCRCErrorCorruptsTheNthChecksumOnce() async throws {
        let central = try SimulatedCentral(devices: [Fixtures.docDevice(faults: [.crcError(1)])])
        let client = try await client(central)
        _ = try await client.request(cp, [0x01, 0x01, 0x46, 0x00, 0x00, 0x00])
        try await client.stream(pkt, Fixtures.docInitPacket[...], payload: 20)
        let crc = CRC32.checksum(Fixtures.docInitPacket)
        let wrong = try await client.request(cp, [0x03])
        XCTAssertEqual(wrong, Fixtures.hex("60 03 01 46 00 00 00") + Fixtures.le32(~crc))
        let right = try await client.request(cp, [0x03])
        XCTAssertEqual(right, Fixtures.hex("60 03 01 46 00 00 00") + Fixtures.le32(crc))
    }

    func testDisconnectAtDropsTheLinkOnceAndProgressIsKept() async throws {
        let image = Fixtures.image(count: 20524)
        let central = try SimulatedCentral(devices: [Fixtures.docDevice(faults: [.disconnectAt(bytes: 5000)])]
        )
        var client = try await client(central)
        let accepted = try await client.sendSecureInitPacket(try Fixtures.docInitPacket(for: image))
        XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
        do {
            _ = try await client.sendSecureImage(image)
            XCTFail("the link must drop at 5000 bytes")
        } catch GATTError.disconnected {}
        let isConnected = await client.peripheral.isConnected
        XCTAssertFalse(isConnected)
        client = try await self.client(central)
        _ = try await client.request(cp, [0x04])
        let selected = try await client.select(2)
        // The packet that crossed 5000 bytes (20-byte packets from 4096 on) was received.
        XCTAssertEqual(selected.offset, 5016)
        XCTAssertEqual(selected.crc, CRC32.checksum(image[..<5016]))
        let final = try await client.sendSecureImage(image, from: 5016)
        XCTAssertEqual(final, [0x60, 0x04, 0x01])
    }

    func testSlowFlashMakesEveryPageEraseTakeLonger() async throws {
        let image = Fixtures.image(count: 160)
        var elapsed: [Duration] = []
        for faults in [[], [SimulatedFault.slowFlash(.milliseconds(400))]] {
            let central = try SimulatedCentral(devices: [Fixtures.docDevice(faults: faults)])
            let client = try await client(central)
            let accepted = try await client.sendSecureInitPacket(try Fixtures.initPacket(for: image))
            XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
            let start = client.now
            let final = try await client.sendSecureImage(image, delay: .zero)
            XCTAssertEqual(final, [0x60, 0x04, 0x01])
            elapsed.append(client.now - start)
        }
        // The Execute answer waits for three erases, each 315 ms longer: the settings page and
        // its backup (queued by the init command's Execute), then the object's page.
        XCTAssertGreaterThanOrEqual(elapsed[1] - elapsed[0], .milliseconds(945))
        XCTAssertLessThanOrEqual(elapsed[1] - elapsed[0], .milliseconds(960))
    }
}
