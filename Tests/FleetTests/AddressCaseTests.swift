import DFUFleet
import DFUSimulator
import FirmwareUpdate
import GATT
import NordicDFU
import XCTest

/// An inventory may write an address in either case: the fleet parses it once and finds the
/// device where it advertises (BlueZ prints upper case); reports keep the inventory's text.
final class AddressCaseTests: XCTestCase {
    func testAMixedCaseAddressFindsAndUpdatesItsDevice() async throws {
        let configuration = FleetFixtures.device(3, kind: .secureApp, firmware: "1.0.0")
        let address = configuration.address.description
        let written = address.prefix(3).lowercased() + address.dropFirst(3)  // "c0:DE:…"
        let (adapter, centrals) = try FleetAdapter.simulated([configuration])
        let inventory = try FleetInventory(
            defaults: .init(package: "app"), devices: [FleetDeviceEntry(device: written)])
        let fleet = try Fleet(
            inventory: inventory,
            packages: ["app": FirmwarePackage(try FleetFixtures.secure(version: 20000, seed: 9))],
            adapters: [adapter], options: FleetFixtures.options(concurrency: 1))
        let log = EventLog()
        let report = await fleet.run { log.append($0) }

        XCTAssertEqual(report.device(written)?.result, .completed, "\(report.devices)")
        XCTAssertEqual(log.planned[written]?.info?.address, configuration.address)
        XCTAssertEqual(centrals[0].snapshots[0].firmwareRevision, "2.0.0")
    }
}
