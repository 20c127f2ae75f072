import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// The bound: a scripted ideal client must not beat it and must come within 3 % of it; a
/// client that behaves like the iOS library must not beat it either.
final class TransferBoundTests: XCTestCase {
    let cp = ScriptedClient.cp
    let pkt = ScriptedClient.pkt
    let timing = SimulationTiming()
    let address = DeviceIdentifier("C0:DE:00:00:00:10")

    private func secureClient(mtu: Int, faults: [SimulatedFault] = []) async throws -> ScriptedClient {
        let central = try SimulatedCentral(devices: [Fixtures.docDevice(faults: faults, mtu: mtu)])
        let client = try await ScriptedClient(central: central, device: address)
        try await client.subscribe(cp)
        return client
    }

    /// Sends an image as fast as the model allows: it knows the flash timing and sends a packet
    /// only when the device will have a free buffer and room in its flash queue for it, and makes
    /// no request it does not need.
    private func idealSecureTransfer(
        image: [UInt8], client: ScriptedClient, payload: Int, prn: Int, timing: SimulationTiming
    ) async throws -> [UInt8] {
        let initPacket = try Fixtures.initPacket(for: image)
        let interval = timing.connectionInterval
        _ = try await client.request(cp, [0x01, 0x01] + Fixtures.le32(UInt32(initPacket.count)))
        try await client.stream(pkt, initPacket[...], payload: payload)
        _ = try await client.request(cp, [0x03])
        // Flash operations queue one after another: completion times, and the packet buffers
        // held until their write completes.
        var busyUntil = client.now
        var operations: [Duration] = []
        var buffers: [Duration] = []
        func queue(_ duration: Duration, at time: Duration) {
            busyUntil = max(busyUntil, time) + duration
            operations.append(busyUntil)
        }
        try await client.write(cp, [0x04])
        for operation in timing.settingsWriteOperations { queue(operation, at: client.now - interval) }
        _ = try await client.next(cp)
        if prn > 0 { _ = try await client.request(cp, [0x02, UInt8(prn), 0x00]) }
        let bufferCount = timing.packetBuffers(mtu: payload + 3)
        var offset = 0
        var last: [UInt8] = []
        while offset < image.count {
            let size = min(4096, image.count - offset)
            try await client.write(cp, [0x01, 0x02] + Fixtures.le32(UInt32(size)))
            queue(timing.eraseTime(bytes: size), at: client.now - interval)  // it arrived an event earlier
            _ = try await client.next(cp)
            var packets = 0
            for start in stride(from: offset, to: offset + size, by: payload) {
                let end = min(start + payload, offset + size)
                while true {
                    let intervals = Int64((client.now / interval).rounded(.up))
                    let arrival = interval * intervals
                    operations.removeAll { $0 <= arrival }
                    buffers.removeAll { $0 <= arrival }
                    guard operations.count >= timing.flashOperationQueue || buffers.count >= bufferCount
                    else {
                        break
                    }
                    try await client.central.linkTime.sleep(for: operations[0] - client.now)
                }
                try await client.writeWithoutResponse(pkt, Array(image[start..<end]))
                queue(timing.writeTime(bytes: end - start), at: client.now)
                buffers.append(busyUntil)
                packets += 1
                if prn > 0, packets % prn == 0 { _ = try await client.next(cp) }
            }
            let checksum = try await client.request(cp, [0x03])
            XCTAssertEqual(checksum.suffix(4), Fixtures.le32(CRC32.checksum(image[..<(offset + size)]))[...])
            last = try await client.request(cp, [0x04])
            offset += size
        }
        return last
    }

    private func assertIdealSecure(
        size: Int, mtu: Int, prn: Int, slowFlash: Duration? = nil, line: UInt = #line
    ) async throws {
        var timing = self.timing
        if let slowFlash { timing.pageErase = slowFlash }
        let image = Fixtures.image(count: size, seed: UInt32(size))
        let payload = (mtu - 3) / 4 * 4
        let client = try await secureClient(mtu: mtu, faults: slowFlash.map { [.slowFlash($0)] } ?? [])
        // The bound starts at the event of the first request: the one after the subscription's answer.
        let start = client.now + timing.connectionInterval
        let final = try await idealSecureTransfer(
            image: image, client: client, payload: payload, prn: prn, timing: timing)
        let elapsed = client.now - start
        XCTAssertEqual(final, [0x60, 0x04, 0x01], line: line)
        let bound = TransferBound.minimumDuration(
            for: TransferConfiguration(
                dfuProtocol: .secure, imageSize: size,
                initPacketSize: try Fixtures.initPacket(for: image).count,
                payloadSize: payload, packetReceiptNotifications: prn),
            timing: timing)
        XCTAssertGreaterThanOrEqual(elapsed, bound, "size \(size) mtu \(mtu) prn \(prn)", line: line)
        XCTAssertLessThanOrEqual(elapsed, bound * 1.03, "size \(size) mtu \(mtu) prn \(prn)", line: line)
    }

    func testIdealSecureClientMeetsTheBound() async throws {
        try await assertIdealSecure(size: 102_400, mtu: 247, prn: 0)
        try await assertIdealSecure(size: 20524, mtu: 23, prn: 12)
        try await assertIdealSecure(size: 50_000, mtu: 247, prn: 10)
        try await assertIdealSecure(size: 30_000, mtu: 517, prn: 0)
        try await assertIdealSecure(size: 100, mtu: 185, prn: 0)
        // `slow-flash` is the same model with a longer page erase.
        try await assertIdealSecure(size: 30_000, mtu: 247, prn: 0, slowFlash: .milliseconds(400))
    }

    func testALibraryLikeClientDoesNotBeatTheBound() async throws {
        for (mtu, prn) in [(247, 12), (23, 12), (247, 0)] {
            let image = Fixtures.image(count: 40000)
            let payload = (mtu - 3) / 4 * 4
            let client = try await secureClient(mtu: mtu)
            let start = client.now
            _ = try await client.select(1)
            let accepted = try await client.sendSecureInitPacket(
                try Fixtures.initPacket(for: image), payload: payload)
            XCTAssertEqual(accepted, [0x60, 0x04, 0x01])
            _ = try await client.select(2)
            let final = try await client.sendSecureImage(image, payload: payload, prn: UInt16(prn))
            XCTAssertEqual(final, [0x60, 0x04, 0x01])
            let bound = TransferBound.minimumDuration(
                for: TransferConfiguration(
                    dfuProtocol: .secure, imageSize: image.count,
                    initPacketSize: try Fixtures.initPacket(for: image).count,
                    payloadSize: payload, packetReceiptNotifications: prn),
                timing: timing)
            XCTAssertGreaterThanOrEqual(client.now - start, bound, "mtu \(mtu) prn \(prn)")
        }
    }

    func testIdealLegacyClientMeetsTheBound() async throws {
        let image = try DFUPackage(
            contentsOf: try Fixtures.file("legacy/legacy_app_20000_hex.zip")
        ).images[0]
        for prn in [0, 12, 1] {
            let central = try SimulatedCentral(devices: [
                SimulatedDeviceConfiguration(kind: .legacy, softDeviceID: 0x88, legacyDeviceType: 82)
            ])
            let client = try await ScriptedClient(central: central, device: address)
            let legacyCP = Fixtures.uuids.legacyControlPoint
            let legacyPacket = Fixtures.uuids.legacyPacket
            try await client.subscribe(legacyCP)
            let start = client.now + timing.connectionInterval
            try await client.write(legacyCP, [0x01, 0x04])
            try await client.writeWithoutResponse(legacyPacket, LegacyImageSizes(application: 20000).encoded)
            _ = try await client.next(legacyCP)
            try await client.write(legacyCP, [0x02, 0x00])
            try await client.stream(legacyPacket, image.initPacket![...], payload: 20)
            _ = try await client.request(legacyCP, [0x02, 0x01])
            if prn > 0 { try await client.write(legacyCP, [0x08, UInt8(prn), 0x00]) }
            try await client.write(legacyCP, [0x03])
            var packets = 0
            for offset in stride(from: 0, to: image.firmware.count, by: 20) {
                try await client.writeWithoutResponse(
                    legacyPacket, Array(image.firmware[offset..<min(offset + 20, image.firmware.count)]))
                packets += 1
                // The packet that completes the image gets `10 03 01`, not a PRN.
                let more = offset + 20 < image.firmware.count
                if prn > 0, packets % prn == 0, more { _ = try await client.next(legacyCP) }
            }
            let received = try await client.next(legacyCP)
            XCTAssertEqual(received, [0x10, 0x03, 0x01])
            let validated = try await client.request(legacyCP, [0x04])
            XCTAssertEqual(validated, [0x10, 0x04, 0x01])
            let elapsed = client.now - start
            let bound = TransferBound.minimumDuration(
                for: TransferConfiguration(
                    dfuProtocol: .legacy, imageSize: 20000, initPacketSize: image.initPacket!.count,
                    payloadSize: 20,
                    packetReceiptNotifications: prn),
                timing: timing)
            XCTAssertGreaterThanOrEqual(elapsed, bound, "prn \(prn)")
            XCTAssertLessThanOrEqual(elapsed, bound * 1.03, "prn \(prn)")
        }
    }

    func testTheBoundGrowsWithWhatTheModelCharges() {
        let base = TransferConfiguration(
            dfuProtocol: .secure, imageSize: 100_000, initPacketSize: 140, payloadSize: 244)
        let fast = TransferBound.minimumDuration(for: base)
        var withPRN = base
        withPRN.packetReceiptNotifications = 1
        var small = base
        small.payloadSize = 20
        var slowFlash = SimulationTiming()
        slowFlash.pageErase = .milliseconds(400)
        XCTAssertGreaterThan(TransferBound.minimumDuration(for: withPRN), fast)
        XCTAssertGreaterThan(TransferBound.minimumDuration(for: small), fast)
        XCTAssertGreaterThan(TransferBound.minimumDuration(for: base, timing: slowFlash), fast)
        // 25 objects of 4096 bytes: each at least one erase plus its writes.
        let flashOnly = SimulationTiming().pageErase * 25 + SimulationTiming().writeTime(bytes: 100_000)
        XCTAssertGreaterThan(fast, flashOnly)
    }
}
