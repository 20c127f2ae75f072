import DFUSimulator
import GATT
import GATTTesting
import MCUmgr
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// `DeviceProbe`, the one look at a device that the engine, `info` and the fleet share.
final class DeviceProbeTests: XCTestCase {
    private func probe(_ kind: SimulatedDeviceKind, firmware: String? = "2.1.0") async throws -> DeviceProbe {
        var configuration = SimulatedDeviceConfiguration(kind: kind)
        configuration.firmwareVersion = firmware
        let central = try SimulatedCentral(devices: [configuration])
        let peripheral = try await central.connect(
            DeviceIdentifier("C0:DE:00:00:00:10"), timeout: .seconds(5))
        defer { Task { await peripheral.disconnect() } }
        return try await DeviceProbe.read(peripheral, timeout: .seconds(5))
    }

    func testAnApplicationReportsItsVersionAndItsDFU() async throws {
        let found = try await probe(.secureApp)
        XCTAssertEqual(found.address.description, "C0:DE:00:00:00:10")
        XCTAssertEqual(found.firmwareRevision, "2.1.0")
        XCTAssertEqual(
            found.support,
            DFUDeviceSupport(protocolKind: .secure, mode: .application, buttonless: .withoutBonds))
        XCTAssertTrue(found.services.contains(DeviceInformationUUIDs.service))
    }

    func testABootloaderHasNoVersion() async throws {
        let found = try await probe(.legacy, firmware: nil)
        XCTAssertNil(found.firmwareRevision)
        XCTAssertEqual(found.support?.mode, .bootloader)
        XCTAssertEqual(found.support?.protocolKind, .legacy)
    }

    /// Issue 38: an SMP device without a Device Information Service tells its version in its image
    /// list, which the probe reads once.
    func testAnSMPDeviceWithoutDeviceInformationReportsItsRunningImage() async throws {
        let configuration = SimulatedDeviceConfiguration(kind: .smpApp, firmwareVersion: "1.4.2")
        let central = try SimulatedCentral(devices: [configuration])
        let peripheral = try await central.connect(
            DeviceIdentifier("C0:DE:00:00:00:10"), timeout: .seconds(5))
        defer { Task { await peripheral.disconnect() } }
        let found = try await DeviceProbe.read(withoutDeviceInformation(peripheral), timeout: .seconds(5))
        XCTAssertFalse(found.services.contains(DeviceInformationUUIDs.service))
        XCTAssertEqual(found.support?.protocolKind, .smp)
        XCTAssertEqual(found.firmwareRevision, "1.4.2")
    }

    /// An SMP device that answers bootloader information is read with its bootloader and mode;
    /// one without the command (Zephyr's default) with none.
    func testAnSMPDeviceTellsItsBootloaderWhenItCan() async throws {
        for mode in [MCUbootMode.swapUsingMove, nil] {
            var configuration = SimulatedDeviceConfiguration(kind: .smpApp, firmwareVersion: "1.4.2")
            configuration.smp.bootloaderMode = mode
            let central = try SimulatedCentral(devices: [configuration])
            let peripheral = try await central.connect(
                DeviceIdentifier("C0:DE:00:00:00:10"), timeout: .seconds(5))
            let found = try await DeviceProbe.read(withoutDeviceInformation(peripheral), timeout: .seconds(5))
            await peripheral.disconnect()
            XCTAssertEqual(found.firmwareRevision, "1.4.2", "the image list is read first")
            XCTAssertEqual(found.bootloader, mode.map { SMPBootloader(name: "MCUboot", mode: $0) })
        }
    }

    private func withoutDeviceInformation(_ link: any GATTPeripheral) -> any GATTPeripheral {
        FakePeripheral.hiding(DeviceInformationUUIDs.service, on: link)
    }

    /// Device Information strings as firmware writes them: padded with NULs or spaces, or cut
    /// short by a NUL.
    func testTextIsReadAsDeviceInformationStringsAreWritten() async throws {
        let cases: [([UInt8], String)] = [
            (Array("1.2.3".utf8), "1.2.3"), (Array("1.2.3\0\0\0".utf8), "1.2.3"),
            (Array(" 1.2.3 \n".utf8), "1.2.3"), (Array("1.2\0junk".utf8), "1.2"), ([0, 0], ""),
        ]
        for (bytes, expected) in cases {
            let service = GATTService(
                uuid: DeviceInformationUUIDs.service, characteristics: [FixedValue(bytes: bytes)])
            let text = try await DeviceProbe.text(
                of: DeviceInformationUUIDs.firmwareRevision, in: [service], timeout: .seconds(1))
            XCTAssertEqual(text, expected, "\(bytes)")
        }
        let absent = try await DeviceProbe.text(
            of: DeviceInformationUUIDs.hardwareRevision, in: [], timeout: .seconds(1))
        XCTAssertNil(absent)
    }
}
