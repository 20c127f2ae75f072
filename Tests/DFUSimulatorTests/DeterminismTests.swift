import DFUSimulator
import DFUSupport
import FirmwareUpdate
import GATT
import NordicDFU
import TestSupport
import XCTest

/// The same update on the same simulated device gives the same events, byte for byte: virtual
/// time moves only with the client's operations, never with when its tasks happen to run.
final class DeterminismTests: XCTestCase {
    /// Runs `package` onto a fresh device twice and returns both event streams, rendered.
    private func twoRuns(
        _ package: DFUPackage, _ configuration: SimulatedDeviceConfiguration, prn: UInt16
    ) async throws -> [[String]] {
        var streams: [[String]] = []
        for _ in 0..<2 {
            let central = try SimulatedCentral(devices: [configuration])
            var options = DFUOptions()
            options.nordic.packetReceiptNotifications = prn
            options.force = true
            options.notificationTimeout = .seconds(2)
            options.responseTimeout = .seconds(4)
            options.connectTimeout = .seconds(2)
            options.bootloaderScanTimeout = .seconds(4)
            let updater = DFUUpdater(
                package: package, central: central, device: .address(configuration.address),
                options: options)
            let events = Locked<[String]>([])
            let result = await updater.run { event in events.withLock { $0.append("\(event)") } }
            XCTAssertEqual(result.identifier, "completed", "\(result)")
            streams.append(events.withLock { $0 })
        }
        return streams
    }

    func testAFaultySecureUpdateGivesTheSameEventsTwice() async throws {
        let package = try DFUPackage(
            contentsOf: try Fixtures.file("secure/secure_app_12k_hex_signed_version_string.zip"))
        // Slow erases lose packets, a wrong CRC forces an object to be sent again, and the link
        // drops mid-object (resume). PRN 0: the engine's PRN accounting is not involved.
        var device = SimulatedDeviceConfiguration(kind: .secure, softDeviceID: softDevice(of: package))
        device.faults = [.slowFlash(.milliseconds(400)), .crcError(2), .disconnectAt(bytes: 6000)]
        let streams = try await twoRuns(package, device, prn: 0)
        XCTAssertGreaterThan(streams[0].count, 5)
        XCTAssertEqual(streams[0], streams[1])
    }

    func testAFaultyLegacyUpdateGivesTheSameEventsTwice() async throws {
        let package = try DFUPackage(contentsOf: try Fixtures.file("legacy/legacy_app_20000_hex.zip"))
        var device = SimulatedDeviceConfiguration(kind: .legacy, softDeviceID: 0x88, legacyDeviceType: 82)
        device.faults = [.disconnectAt(bytes: 5000), .rejectConnect(1)]
        let streams = try await twoRuns(package, device, prn: 12)
        XCTAssertEqual(streams[0], streams[1])
    }

    /// A client that reads notifications in a task of its own (as the engine's inbox does) and
    /// streams without waiting for them: the virtual time of every write is the same each run.
    func testVirtualTimeDoesNotDependOnWhenNotificationsAreRead() async throws {
        let first = try await legacyStreamTimes()
        let second = try await legacyStreamTimes()
        XCTAssertEqual(first.count, 1000)
        XCTAssertEqual(first, second)
    }

    private func legacyStreamTimes() async throws -> [Duration] {
        let cp = Fixtures.uuids.legacyControlPoint
        let pkt = Fixtures.uuids.legacyPacket
        let image = try DFUPackage(contentsOf: try Fixtures.file("legacy/legacy_app_20000_hex.zip")).images[0]
        let central = try SimulatedCentral(devices: [
            SimulatedDeviceConfiguration(kind: .legacy, softDeviceID: 0x88, legacyDeviceType: 82)
        ])
        let peripheral = try await central.connect(
            DeviceIdentifier("C0:DE:00:00:00:10"), timeout: .seconds(2))
        var characteristics: [BluetoothUUID: any GATTCharacteristic] = [:]
        for service in try await peripheral.services() {
            for characteristic in service.characteristics {
                characteristics[characteristic.uuid] = characteristic
            }
        }
        let controlPoint = try XCTUnwrap(characteristics[cp])
        let packet = try XCTUnwrap(characteristics[pkt])
        // The pump reads every notification as soon as it can and hands it on.
        let (answers, forward) = AsyncStream.makeStream(of: [UInt8].self)
        let notifications = try await controlPoint.subscribe(timeout: .seconds(2))
        let pump = Task {
            for try await value in notifications { forward.yield(value) }
            forward.finish()
        }
        defer { pump.cancel() }
        var iterator = answers.makeAsyncIterator()
        try await controlPoint.write([0x01, 0x04], timeout: .seconds(2))
        try await packet.writeWithoutResponse(LegacyImageSizes(application: 20000).encoded)
        let started = await iterator.next()
        XCTAssertEqual(started, Fixtures.hex("10 01 01"))
        try await controlPoint.write([0x02, 0x00], timeout: .seconds(2))
        for start in stride(from: 0, to: image.initPacket!.count, by: 20) {
            try await packet.writeWithoutResponse(
                Array(image.initPacket![start..<min(start + 20, image.initPacket!.count)]))
        }
        try await controlPoint.write([0x02, 0x01], timeout: .seconds(2))
        let initialized = await iterator.next()
        XCTAssertEqual(initialized, Fixtures.hex("10 02 01"))
        try await controlPoint.write([0x08, 0x01, 0x00], timeout: .seconds(2))
        try await controlPoint.write([0x03], timeout: .seconds(2))
        var times: [Duration] = []
        for start in stride(from: 0, to: image.firmware.count, by: 20) {
            try await packet.writeWithoutResponse(Array(image.firmware[start..<(start + 20)]))
            times.append(central.linkTime.now())
        }
        return times
    }

    private func softDevice(of package: DFUPackage) -> UInt16 {
        guard case .secure(let initPacket) = package.images.first?.decodedInitPacket,
            let required = initPacket.sdReq.first(where: { $0 != 0 && $0 != 0xFFFE })
        else { return 0xB6 }
        return UInt16(required)
    }
}
