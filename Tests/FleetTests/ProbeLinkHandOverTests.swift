import DFUFleet
import DFUSimulator
import DFUSupport
import FirmwareUpdate
import GATT
import GATTTesting
import MCUmgr
import NordicDFU
import SimulatedFleet
import XCTest

/// A fleet of one that hands its probe's link to the update (`handsProbeLinkToUpdate`, as a
/// gateway runs each device): one connection fewer per updated device, and no link left up
/// whatever happens between the probe and the update.
final class ProbeLinkHandOverTests: XCTestCase {
    /// Runs a fleet of `configurations`' devices, each through a counting central, one at a
    /// time; `maximumFailures` as the fleet's; `package`: by default a Secure application.
    private func run(
        _ configurations: [SimulatedDeviceConfiguration], handsOver: Bool = true, maximumFailures: Int? = nil,
        package: FirmwarePackage? = nil
    ) async throws -> [(central: FakeCentral, report: FleetDeviceReport)] {
        let (_, simulated) = try FleetAdapter.simulated(configurations)
        let centrals = simulated.map { FakeCentral($0) }
        let adapter = FleetAdapter(name: "simulated", centrals: centrals, maximumConnections: 1)
        let inventory = try FleetInventory(
            defaults: .init(package: "A"),
            devices: configurations.map { FleetDeviceEntry(device: $0.address.description) })
        var options = FleetFixtures.options(concurrency: 1)
        options.readBack = false
        options.handsProbeLinkToUpdate = handsOver
        options.maximumFailures = maximumFailures
        let package = try package ?? FirmwarePackage(FleetFixtures.secure(version: 20000, seed: 11))
        let fleet = try Fleet(
            inventory: inventory, packages: ["A": package], adapters: [adapter], options: options)
        let report = await fleet.run { _ in }
        var results: [(FakeCentral, FleetDeviceReport)] = []
        for (central, device) in zip(centrals, report.devices) {
            let linkUp = await central.anyLinkUp
            XCTAssertFalse(linkUp, "a link of \(device.device) is still up after the fleet ended")
            results.append((central, device))
        }
        XCTAssertEqual(results.count, configurations.count)
        return results
    }

    /// Runs a fleet of `configuration`'s one device.
    private func run(_ configuration: SimulatedDeviceConfiguration, handsOver: Bool = true) async throws
        -> (central: FakeCentral, report: FleetDeviceReport)
    {
        try await run([configuration], handsOver: handsOver)[0]
    }

    /// An application with buttonless DFU: the probe's link is the update's, so the update
    /// connects only to the bootloader (two connections where there were three).
    func testTheUpdateTakesOverTheProbesLink() async throws {
        let device = FleetFixtures.device(0, kind: .secureApp, firmware: "1.0.0")
        let (handedOver, report) = try await run(device)
        XCTAssertEqual(report.result, .completed, report.failure?.message ?? "")
        let (apart, _) = try await run(device, handsOver: false)
        XCTAssertEqual(apart.connections, 3, "probe, application, bootloader")
        XCTAssertEqual(handedOver.connections, 2, "the update connected again to the device it probed")
    }

    /// A device waiting in its bootloader is updated on the link its probe opened.
    func testABootloaderIsUpdatedOnTheProbesLink() async throws {
        let (central, report) = try await run(FleetFixtures.device(0, kind: .secure))
        XCTAssertEqual(report.result, .completed, report.failure?.message ?? "")
        XCTAssertEqual(central.connections, 1)
    }

    /// A bonded device: the update encrypts the link it took over, and its bootloader at the
    /// same address is connected to anew after the jump dropped that link.
    func testABondedDeviceTakesOverTheLinkAndConnectsAnewToItsBootloader() async throws {
        let (central, report) = try await run(
            FleetFixtures.device(0, kind: .secureAppBonded, firmware: "1.0.0"))
        XCTAssertEqual(report.result, .completed, report.failure?.message ?? "")
        XCTAssertEqual(central.connections, 2)
    }

    /// An SMP device's probe subscribed to its SMP characteristic: its link is closed and the
    /// update connects anew, as without the option.
    func testAnSMPDevicesProbeLinkIsNotHandedOver() async throws {
        let image = try MCUbootImage(
            bytes: SimulatedMCUbootImage.make(version: MCUbootVersion("1.1.0")!, bodySize: 9000, seed: 3),
            name: "app_update.bin")
        let package = FirmwarePackage(MCUbootPackage(image: image))
        let device = FleetFixtures.device(0, kind: .smpApp, firmware: "1.0.0")
        let handedOver = try await run([device], package: package)[0]
        XCTAssertEqual(handedOver.report.result, .completed, handedOver.report.failure?.message ?? "")
        let apart = try await run([device], handsOver: false, package: package)[0]
        XCTAssertEqual(handedOver.central.connections, apart.central.connections)
    }

    /// An up-to-date device is skipped: its probe's link is closed, nothing else connects.
    func testASkippedDevicesProbeLinkIsClosed() async throws {
        let (central, report) = try await run(FleetFixtures.device(0, kind: .secureApp, firmware: "2.0.0"))
        XCTAssertEqual(report.result, .skipped)
        XCTAssertEqual(central.connections, 1)
    }

    /// The fleet halts between a device's probe and its update (another device could not be
    /// read: one failure, the limit): the device is not started and its probe's link is closed.
    func testADeviceNotStartedAfterItsProbeHasItsLinkClosed() async throws {
        let unreachable = FleetFixtures.device(
            0, kind: .secureApp, firmware: "1.0.0", faults: [.rejectConnect(1000)])
        let results = try await run(
            [unreachable, FleetFixtures.device(1, kind: .secureApp, firmware: "1.0.0")], maximumFailures: 1)
        XCTAssertEqual(results.map(\.report.result), [.failed, .notStarted])
        XCTAssertEqual(results[1].central.connections, 1)
    }
}
