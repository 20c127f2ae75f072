import DFUFleet
import DFUSimulator
import FirmwareUpdate
import GATT
import NordicDFU
import SimulatedFleet
import SimulatorCommandLine
import XCTest

/// Safe rollout: the plan writes nothing, a failed canary stops the rollout, `maximumFailures`
/// stops starting updates, a device's whole update is retried after a lost link.
final class FleetCanaryTests: XCTestCase {
    private let package = "app"

    private func fleet(
        _ configurations: [SimulatedDeviceConfiguration], options: FleetOptions, state: FleetStateFile? = nil
    ) throws -> (Fleet, [SimulatedCentral]) {
        let (adapter, centrals) = try FleetAdapter.simulated(configurations)
        let inventory = try FleetInventory(
            defaults: .init(package: package),
            devices: configurations.map { FleetDeviceEntry(device: $0.address.description) })
        let fleet = try Fleet(
            inventory: inventory,
            packages: [package: FirmwarePackage(try FleetFixtures.secure(version: 20000, seed: 9))],
            adapters: [adapter], options: options, state: state)
        return (fleet, centrals)
    }

    func testPlanReadsEveryDeviceAndWritesNothing() async throws {
        let configurations = (0..<12).map { index in
            FleetFixtures.device(
                index, kind: [.secureApp, .secure, .secureAppBonded][index % 3],
                firmware: index % 3 == 1 ? nil : (index < 6 ? "1.0.0" : "2.0.0"))
        }
        var options = FleetFixtures.options(concurrency: 4)
        options.plan = true
        let folder = try FleetFixtures.temporaryFolder(self)
        let stateURL = folder.appendingPathComponent("state.json")
        let (fleet, centrals) = try fleet(
            configurations, options: options,
            state: try await FleetStateFile(url: stateURL, inventory: "plan"))
        let before = centrals.map { $0.snapshots[0] }
        let log = EventLog()
        let report = await fleet.run { log.append($0) }

        XCTAssertFalse(FileManager.default.fileExists(atPath: stateURL.path), "the plan wrote the state file")
        for (index, central) in centrals.enumerated() {
            let after = central.snapshots[0]
            XCTAssertEqual(after.images, before[index].images)
            XCTAssertEqual(after.mode, before[index].mode)
            XCTAssertEqual(after.activations, before[index].activations)
            XCTAssertEqual(after.firmwareRevision, before[index].firmwareRevision)
            let device = configurations[index].address.description
            let entry = try XCTUnwrap(log.planned[device], device)
            XCTAssertTrue(entry.found)
            XCTAssertEqual(entry.choice?.package, package)
            XCTAssertEqual(entry.choice?.reason, "defaults")
            XCTAssertEqual(entry.packageVersion, "2.0.0")
            let expected: DFUVersionCheck.Decision = index % 3 == 1 ? .unknown : (index < 6 ? .update : .skip)
            XCTAssertEqual(entry.decision, expected, device)
            XCTAssertEqual(entry.info?.mode, index % 3 == 1 ? .bootloader : .application)
            XCTAssertEqual(report.device(device)?.result, .notStarted)
        }
        XCTAssertFalse(
            log.all.contains { if case .device = $0 { true } else { false } }, "the plan started an update")
    }

    func testAFailedCanaryStopsTheRollout() async throws {
        var configurations = (0..<10).map { FleetFixtures.device($0, kind: .secureApp, firmware: "1.0.0") }
        configurations[1].hardwareVersion = 51  // refuses the package
        var options = FleetFixtures.options(concurrency: 4)
        options.canary = 2
        let (fleet, centrals) = try fleet(configurations, options: options)
        let log = EventLog()
        let report = await fleet.run { log.append($0) }

        XCTAssertEqual(report.devices[0].result, .completed)
        XCTAssertEqual(report.devices[1].result, .failed)
        XCTAssertTrue(log.all.contains { if case .halted = $0 { true } else { false } })
        for index in 2..<10 {
            XCTAssertEqual(report.devices[index].result, .notStarted)
            XCTAssertEqual(centrals[index].snapshots[0].activations, 0)
        }
    }

    func testMaximumFailuresStopsStartingUpdates() async throws {
        var configurations = (0..<8).map { FleetFixtures.device($0, kind: .secureApp, firmware: "1.0.0") }
        for index in 0..<3 { configurations[index].hardwareVersion = 51 }
        var options = FleetFixtures.options(concurrency: 1)
        options.maximumFailures = 2
        let (fleet, centrals) = try fleet(configurations, options: options)
        let report = await fleet.run()

        XCTAssertEqual(
            report.devices.map(\.result), [.failed, .failed] + Array(repeating: .notStarted, count: 6))
        for index in 2..<8 { XCTAssertEqual(centrals[index].snapshots[0].activations, 0) }
    }

    /// A device that could not be read counts towards the limit with the updates' failures.
    func testFailuresBeforeTheUpdatesCountTowardsMaximumFailures() async throws {
        var configurations = (0..<5).map { FleetFixtures.device($0, kind: .secureApp, firmware: "1.0.0") }
        configurations[0].faults = [.rejectConnect(1000)]
        configurations[1].hardwareVersion = 51
        var options = FleetFixtures.options(concurrency: 1)
        options.maximumFailures = 2
        let (fleet, centrals) = try fleet(configurations, options: options)
        let log = EventLog()
        let report = await fleet.run { log.append($0) }

        XCTAssertEqual(
            report.devices.map(\.result), [.failed, .failed] + Array(repeating: .notStarted, count: 3))
        for index in 2..<5 { XCTAssertEqual(centrals[index].snapshots[0].activations, 0) }
        let halts = log.all.compactMap { if case .halted(let reason) = $0 { reason } else { nil } }
        XCTAssertEqual(halts, ["2 devices failed (--max-failures 2); no more updates are started"])
    }

    func testALostLinkIsRetriedAsAWholeAfterTheBootloaderMoved() async throws {
        let configurations = [
            FleetFixtures.device(0, kind: .secureApp, firmware: "1.0.0", faults: [.disconnectAt(bytes: 2000)])
        ]
        var options = FleetFixtures.options(concurrency: 1)
        options.update.retries = 0  // the engine gives up at once; the fleet tries again
        let (fleet, centrals) = try fleet(configurations, options: options)
        let report = await fleet.run()

        let device = report.devices[0]
        XCTAssertEqual(device.result, .completed, device.failure?.message ?? "")
        XCTAssertEqual(device.retries, 1)
        XCTAssertEqual(device.versionAfter, "2.0.0")
        XCTAssertEqual(centrals[0].snapshots[0].firmwareRevision, "2.0.0")
    }
}
