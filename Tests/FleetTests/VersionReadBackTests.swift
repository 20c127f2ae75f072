import DFUFleet
import DFUSimulator
import DFUSupport
import FirmwareUpdate
import GATT
import GATTTesting
import NordicDFU
import SimulatedFleet
import XCTest

/// After an update, the fleet reads back what the device runs: it looks for the device as long
/// as its bootloader may take to put the image in place, on top of the scan timeout.
final class VersionReadBackTests: XCTestCase {
    func testTheReadBackWaitsForTheBootloadersCopyOfTheImage() async throws {
        let device = FleetFixtures.device(0, kind: .secureApp, firmware: "1.0.0")
        let (_, simulated) = try FleetAdapter.simulated([device])
        let windows = Locked<[Duration]>([])
        let central = FakeCentral(simulated[0]) { filter, timeout, central in
            windows.withLock { $0.append(timeout) }
            return central.scan(filter, timeout: timeout)
        }
        let adapter = FleetAdapter(name: "simulated", centrals: [central], maximumConnections: 1)
        let inventory = try FleetInventory(
            defaults: .init(package: "A"), devices: [FleetDeviceEntry(device: device.address.description)])
        let options = FleetFixtures.options(concurrency: 1)
        let package = FirmwarePackage(try FleetFixtures.secure(version: 20000, size: 100_000, seed: 12))
        let fleet = try Fleet(
            inventory: inventory, packages: ["A": package], adapters: [adapter], options: options)
        let report = await fleet.run { _ in }.devices[0]
        XCTAssertEqual(report.result, .completed, report.failure?.message ?? "")
        XCTAssertEqual(report.versionAfter, "2.0.0")
        // the read-back's scan is the run's last
        let readBack = try XCTUnwrap(windows.withLock { $0.last })
        let copy = NRF52Flash.copyTime(bytes: 100_000)
        XCTAssertGreaterThan(copy, .seconds(3))
        XCTAssertEqual(readBack, options.update.bootloaderScanTimeout + copy)
    }
}
