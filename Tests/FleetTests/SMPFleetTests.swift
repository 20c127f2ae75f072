import DFUFleet
import DFUSimulator
import FirmwareUpdate
import GATT
import MCUmgr
import NordicDFU
import SimulatedFleet
import SimulatorCommandLine
import XCTest

/// A fleet of both families: Zephyr devices (SMP) take an MCUboot image, nRF5 devices a Nordic
/// package, chosen by rule; each is updated once, one that reverts fails, one up to date is
/// skipped.
final class SMPFleetTests: XCTestCase {
    func testAMixedFleetTakesEachFamilysPackage() async throws {
        let image = try MCUbootImage(
            bytes: SimulatedMCUbootImage.make(version: MCUbootVersion("1.1.0")!, bodySize: 9000, seed: 3),
            name: "app_update.bin")
        var configurations = (0..<6).map {
            FleetFixtures.device($0, kind: .smpApp, firmware: "1.0.0", name: "Zephyr")
        }
        configurations[4].faults = [.revertAfterTest]
        configurations[5].firmwareVersion = "1.1.0"  // another image of that version: its hash decides
        configurations += (6..<8).map {
            FleetFixtures.device($0, kind: .secureApp, firmware: "1.0.0", name: "Nrf5")
        }
        let inventory = try FleetInventory(
            defaults: .init(package: "nordic"),
            devices: configurations.map { FleetDeviceEntry(device: $0.address.description) },
            rules: [FleetRule(name: "Zephyr", package: "smp")])
        let (adapter, centrals) = try FleetAdapter.simulated(configurations, maximumConnections: 4)
        let fleet = try Fleet(
            inventory: inventory,
            packages: [
                "smp": FirmwarePackage(MCUbootPackage(image: image)),
                "nordic": FirmwarePackage(try FleetFixtures.secure(version: 20000, seed: 5)),
            ],
            adapters: [adapter], options: FleetFixtures.options(concurrency: 4))
        let report = await fleet.run { _ in }

        for index in 0..<8 {
            let device = configurations[index].address.description
            let entry = try XCTUnwrap(report.device(device), device)
            let snapshot = centrals[index].snapshots[0]
            switch index {
            case 4:
                XCTAssertEqual(entry.result, .failed, device)
                XCTAssertEqual(entry.failure?.error, .imageReverted, device)
                XCTAssertEqual(snapshot.slots.first { $0.active }?.version, "1.0.0")
            case 5:
                XCTAssertEqual(entry.result, .skipped, "\(device): the rule's version check skips 1.1.0")
            case 6, 7:
                XCTAssertEqual(entry.result, .completed, "\(device): \(entry.failure?.message ?? "")")
                XCTAssertEqual(entry.package, "nordic")
                XCTAssertEqual(snapshot.activations, 1, device)
            default:
                XCTAssertEqual(entry.result, .completed, "\(device): \(entry.failure?.message ?? "")")
                XCTAssertEqual(entry.package, "smp")
                XCTAssertEqual(snapshot.slots.first { $0.active }?.hash, image.hash, device)
                XCTAssertEqual(snapshot.activations, 1, device)
                XCTAssertEqual(entry.versionAfter, "1.1.0", device)
            }
        }
    }
}
