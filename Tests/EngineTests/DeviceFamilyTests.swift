import DFUSimulator
import GATT
import GATTTesting
import MCUmgr
import NordicDFU
import XCTest

@testable import FirmwareUpdate

/// The device side of the family seam: detection, the advertised protocol and the probe walk
/// `DeviceFamily`s in `DFUOptions.deviceFamilies`' order, so that a family added to the list is
/// found with nothing else changed.
final class DeviceFamilyTests: XCTestCase {
    /// A simulated application of `kind` running 2.1.0, its services as `services` makes them.
    private func device(
        _ kind: SimulatedDeviceKind = .secureApp,
        services: @escaping @Sendable ([GATTService]) -> [GATTService]
    ) async throws -> any GATTPeripheral {
        let central = try SimulatedCentral(devices: [
            SimulatedDeviceConfiguration(kind: kind, firmwareVersion: "2.1.0")
        ])
        let link = try await central.connect(DeviceIdentifier("C0:DE:00:00:00:10"), timeout: .seconds(5))
        return FakePeripheral(link, services: { services(try await $0.services()) })
    }

    func testAThirdFamilyIsDetectedAndProbedThroughTheList() async throws {
        let peripheral = try await device { _ in [LoaderFamily.service(version: "0.9.1")] }
        defer { Task { await peripheral.disconnect() } }
        let families = DFUOptions().deviceFamilies + [LoaderFamily()]
        let found = try await DeviceProbe.read(peripheral, families: families, timeout: .seconds(5))
        XCTAssertEqual(found.support, DFUDeviceSupport(protocolKind: .smp, mode: .bootloader))
        XCTAssertEqual(found.firmwareRevision, "0.9.1", "the loader's own read")
        XCTAssertEqual(DFUDeviceSupport.advertisedProtocol([LoaderFamily.service], families: families), .smp)

        let withoutIt = try await DeviceProbe.read(peripheral, timeout: .seconds(5))
        XCTAssertNil(withoutIt.support, "the standard families know no loader")
        XCTAssertNil(DFUDeviceSupport.advertisedProtocol([LoaderFamily.service]))
    }

    /// The first family a device's services offer is its family, and only that family's probe
    /// reads: the loader after Nordic leaves a Secure DFU application to Nordic, before it takes it.
    func testTheFirstFamilyInTheListTakesTheDevice() async throws {
        let peripheral = try await device { $0 + [LoaderFamily.service(version: "0.9.1")] }
        defer { Task { await peripheral.disconnect() } }
        let nordicFirst = try await DeviceProbe.read(
            peripheral, families: DFUOptions().deviceFamilies + [LoaderFamily()], timeout: .seconds(5))
        XCTAssertEqual(nordicFirst.support?.protocolKind, .secure)
        XCTAssertEqual(nordicFirst.firmwareRevision, "2.1.0")
        let loaderFirst = try await DeviceProbe.read(
            peripheral, families: [LoaderFamily()] + DFUOptions().deviceFamilies, timeout: .seconds(5))
        XCTAssertEqual(loaderFirst.support, DFUDeviceSupport(protocolKind: .smp, mode: .bootloader))
        XCTAssertEqual(loaderFirst.firmwareRevision, "0.9.1")
    }

    /// Nordic DFU before SMP: a Secure DFU application that also offers SMP is Nordic's, by its
    /// services and by its advertisement.
    func testNordicIsAskedBeforeSMP() async throws {
        let smp = GATTService(
            uuid: SMPUUIDs.service,
            characteristics: [
                FixedValue(bytes: [], uuid: SMPUUIDs.characteristic, serviceUUID: SMPUUIDs.service)
            ])
        let peripheral = try await device { $0 + [smp] }
        defer { Task { await peripheral.disconnect() } }
        let support = try await DFUDeviceSupport.detect(
            in: try await peripheral.services(), timeout: .seconds(5))
        XCTAssertEqual(
            support, DFUDeviceSupport(protocolKind: .secure, mode: .application, buttonless: .withoutBonds))
        XCTAssertEqual(
            DFUDeviceSupport.advertisedProtocol([SMPUUIDs.service, DFUUUIDs().secureService]), .secure)
        XCTAssertEqual(DFUDeviceSupport.advertisedProtocol([SMPUUIDs.service]), .smp)
    }
}
