import DFUSimulator
import FirmwareUpdate
import GATT
import NordicDFU
import XCTest

/// `DFUDeviceSupport` (what `dfu-update info` reports) finds each simulated kind of device as
/// the update engine does, and the advertised protocol from service UUIDs.
final class DeviceSupportTests: XCTestCase {
    private func detect(_ kind: SimulatedDeviceKind, uuids: DFUUUIDs = DFUUUIDs()) async throws
        -> DFUDeviceSupport?
    {
        let central = try SimulatedCentral(devices: [SimulatedDeviceConfiguration(kind: kind)])
        let peripheral = try await central.connect(
            DeviceIdentifier("C0:DE:00:00:00:10"), timeout: .seconds(5))
        defer { Task { await peripheral.disconnect() } }
        return try await DFUDeviceSupport.detect(
            in: try await peripheral.services(), uuids: uuids, timeout: .seconds(5))
    }

    func testEverySimulatedKindIsDetected() async throws {
        let expected: [(SimulatedDeviceKind, DFUDeviceSupport)] = [
            (.secure, DFUDeviceSupport(protocolKind: .secure, mode: .bootloader)),
            (
                .secureApp,
                DFUDeviceSupport(protocolKind: .secure, mode: .application, buttonless: .withoutBonds)
            ),
            (
                .secureAppBonded,
                DFUDeviceSupport(protocolKind: .secure, mode: .application, buttonless: .withBonds)
            ),
            (
                .legacy,
                DFUDeviceSupport(
                    protocolKind: .legacy, mode: .bootloader,
                    legacyVersion: LegacyDFUVersion(major: 0, minor: 8))
            ),
            (
                .legacyApp,
                DFUDeviceSupport(
                    protocolKind: .legacy, mode: .application, buttonless: .legacy,
                    legacyVersion: LegacyDFUVersion(major: 0, minor: 1))
            ),
        ]
        for (kind, support) in expected {
            let detected = try await detect(kind)
            XCTAssertEqual(detected, support, "\(kind)")
        }
    }

    func testCustomUUIDsAreUsed() async throws {
        var uuids = DFUUUIDs()
        uuids.secureService = BluetoothUUID(short: 0x1234)
        let detected = try await detect(.secure, uuids: uuids)
        XCTAssertNil(detected, "a device without the custom service offers no DFU")
    }

    func testAdvertisedProtocol() {
        let uuids = DFUUUIDs()
        XCTAssertEqual(DFUDeviceSupport.advertisedProtocol([uuids.secureService]), .secure)
        XCTAssertEqual(
            DFUDeviceSupport.advertisedProtocol([BluetoothUUID(short: 0x180D), uuids.legacyService]), .legacy)
        XCTAssertNil(DFUDeviceSupport.advertisedProtocol([BluetoothUUID(short: 0x180D)]))
        var custom = DFUUUIDs()
        custom.secureService = BluetoothUUID(short: 0x1234)
        XCTAssertEqual(
            DFUDeviceSupport.advertisedProtocol([BluetoothUUID(short: 0x1234)], uuids: custom), .secure)
    }
}
