import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// Virtual time: what the link and flash model charge (docs/simulator.md).
final class LinkTimeTests: XCTestCase {
    let cp = ScriptedClient.cp
    let pkt = ScriptedClient.pkt
    let interval = SimulationTiming().connectionInterval

    private func client(mtu: Int = 247) async throws -> ScriptedClient {
        try await client(Fixtures.docDevice(mtu: mtu))
    }

    private func client(_ device: SimulatedDeviceConfiguration) async throws -> ScriptedClient {
        let central = try SimulatedCentral(devices: [device])
        let client = try await ScriptedClient(central: central, device: DeviceIdentifier("C0:DE:00:00:00:10"))
        try await client.subscribe(cp)
        return client
    }

    /// With a real-time factor a connection takes its setup in real time too, as a GATT
    /// operation takes what it costs (docs/simulator.md, "Real time").
    func testAConnectionTakesItsSetupInRealTimeWithARealTimeFactor() async throws {
        var device = Fixtures.docDevice(mtu: 247)
        device.timing.realTimeFactor = 0.5
        let central = try SimulatedCentral(devices: [device])
        let clock = ContinuousClock()
        let start = clock.now
        let link = try await central.connect(DeviceIdentifier("C0:DE:00:00:00:10"), timeout: .seconds(5))
        XCTAssertGreaterThanOrEqual(clock.now - start, device.timing.connectionSetup * 0.5)
        await link.disconnect()
    }

    func testARequestAndItsAnswerTakeTwoConnectionIntervals() async throws {
        let client = try await client()
        _ = try await client.request(cp, [0x06, 0x01])
        let start = client.now
        for _ in 0..<10 { _ = try await client.request(cp, [0x06, 0x01]) }
        XCTAssertEqual(client.now - start, interval * 20)
    }

    func testSixPacketsGoInOneConnectionEvent() async throws {
        let client = try await client()
        _ = try await client.request(cp, [0x06, 0x01])
        let start = client.now
        for _ in 0..<60 { try await client.writeWithoutResponse(pkt, [UInt8](repeating: 0, count: 244)) }
        // The first packet goes in the next event, the 60th in the 10th.
        XCTAssertEqual(client.now - start, interval * 10)
    }

    func testPayloadsAbove244BytesTakeTwoSlots() async throws {
        let client = try await client(mtu: 517)
        let mtu = await client.peripheral.mtu
        XCTAssertEqual(mtu, 515)  // the bootloader rounds the payload to whole words
        _ = try await client.request(cp, [0x06, 0x01])
        let start = client.now
        for _ in 0..<60 { try await client.writeWithoutResponse(pkt, [UInt8](repeating: 0, count: 512)) }
        XCTAssertEqual(client.now - start, interval * 20)
    }

    func testSleepAdvancesVirtualTimeOnly() async throws {
        let client = try await client()
        let start = client.now
        let wallClock = ContinuousClock.now
        try await client.central.linkTime.sleep(for: .seconds(30))
        XCTAssertEqual(client.now - start, .seconds(30))
        XCTAssertLessThan(ContinuousClock.now - wallClock, .seconds(1))
    }

    func testAPreparationDelayAvoidsTheDrops() async throws {
        let image = Fixtures.image(count: 20524)
        let client = try await client()
        let accepted = try await client.sendSecureInitPacket(
            try Fixtures.docInitPacket(for: image), payload: 244)
        XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
        // The settings write the Execute queued (two erases) and the object's erase.
        _ = try await client.request(cp, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00])
        try await client.central.linkTime.sleep(for: .milliseconds(280))
        try await client.stream(pkt, image[..<4096], payload: 244)
        let selected = try await client.select(2)
        XCTAssertEqual(selected.offset, 4096)
    }

    func testExecuteWaitsForTheFlash() async throws {
        let image = Fixtures.image(count: 160)
        let client = try await client()
        let accepted = try await client.sendSecureInitPacket(try Fixtures.initPacket(for: image))
        XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
        try await client.central.linkTime.sleep(for: .seconds(1))  // the settings write is done
        _ = try await client.request(cp, [0x01, 0x02, 0xA0, 0x00, 0x00, 0x00])
        let created = client.now  // the event after the Create arrived
        try await client.stream(pkt, image[...], payload: 20)
        let executed = try await client.request(cp, [0x04])
        XCTAssertEqual(executed, [0x60, 0x04, 0x01])
        // Erase (85 ms) + 8 × 5 words × 41 µs + hashing 160 bytes, from the Create's event,
        // rounded up to the next connection event.
        let timing = SimulationTiming()
        let ready = timing.pageErase + timing.writeTime(bytes: 20) * 8 + timing.hashTime(bytes: 160)
        let answeredAfter = client.now - (created - interval)
        XCTAssertGreaterThanOrEqual(answeredAfter, ready)
        XCTAssertLessThan(answeredAfter, ready + interval)
    }

    func testInstantFlashAnswersExecuteInOneRoundTrip() async throws {
        var device = Fixtures.docDevice(mtu: 247)
        device.timing.makeFlashInstant()
        let image = Fixtures.image(count: 160)
        let client = try await client(device)
        let accepted = try await client.sendSecureInitPacket(try Fixtures.initPacket(for: image))
        XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
        _ = try await client.request(cp, [0x01, 0x02, 0xA0, 0x00, 0x00, 0x00])
        try await client.stream(pkt, image[...], payload: 20)
        let written = client.now
        let executed = try await client.request(cp, [0x04])
        XCTAssertEqual(executed, [0x60, 0x04, 0x01])
        // no erase (85 ms from the Create), word writes or hash to wait for: the answer comes in
        // the request's round trip (two connection events at the most)
        XCTAssertLessThanOrEqual(client.now - written, interval * 2)
    }
}
