import DFUFleet
import DFUSimulator
import DFUSupport
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU
import SimulatedFleet
import SimulatorCommandLine
import XCTest

/// Cancelling a fleet mid-run, and resuming it from its state file.
final class InterruptionTests: XCTestCase {
    private let package = "app"

    private func fleet(
        _ adapter: FleetAdapter, count: Int, concurrency: Int, state: FleetStateFile? = nil
    ) throws -> Fleet {
        let inventory = try FleetInventory(
            defaults: .init(package: package),
            devices: (0..<count).map {
                FleetDeviceEntry(device: FleetFixtures.device($0, kind: .secureApp).address.description)
            })
        return try Fleet(
            inventory: inventory,
            packages: [
                package: FirmwarePackage(try FleetFixtures.secure(version: 20000, size: 40000, seed: 4))
            ],
            adapters: [adapter], options: FleetFixtures.options(concurrency: concurrency), state: state)
    }

    /// Runs `fleet` and cancels it from its own events once `shouldCancel` says so.
    private func run(_ fleet: Fleet, cancelWhen shouldCancel: @escaping @Sendable (FleetEvent) -> Bool) async
        -> FleetReport
    {
        let controller = Locked<FleetController?>(nil)
        let (started, events) = fleet.start { event in
            if shouldCancel(event) { controller.withLock { $0?.cancel() } }
        }
        controller.withLock { $0 = started }
        for await output in events {
            if case .ended(let report) = output { return report }
        }
        XCTFail("the fleet ended without a report")
        return FleetReport(devices: [], duration: .zero)
    }

    func testCancellingMidFleetLeavesEveryDeviceAbleToTakeTheUpdateAgain() async throws {
        let configurations = (0..<20).map { FleetFixtures.device($0, kind: .secureApp, firmware: "1.0.0") }
        let (adapter, centrals) = try FleetAdapter.simulated(configurations)
        let first = await run(try fleet(adapter, count: 20, concurrency: 8)) { event in
            if case .device(_, .progress(let progress)) = event { return progress.percent >= 30 }
            return false
        }
        let results = first.devices.map(\.result)
        XCTAssertTrue(results.contains(.aborted), "\(results)")
        XCTAssertTrue(results.contains(.notStarted), "\(results)")
        XCTAssertFalse(results.contains(.failed), "\(first.devices.compactMap(\.failure?.message))")
        XCTAssertEqual(first.devices.count, 20)

        let sha = FleetFixtures.sha256(try FleetFixtures.secure(version: 20000, size: 40000, seed: 4))
        for central in centrals {
            let snapshot = central.snapshots[0]
            let held = snapshot.images[.application]?.sha256
            // Never a partial image: the factory one or the whole new one.
            XCTAssertTrue(
                held == sha ? snapshot.activations == 1 : snapshot.activations == 0, snapshot.address)
        }

        let second = try await fleet(adapter, count: 20, concurrency: 8).run()
        for (index, device) in second.devices.enumerated() {
            let expected: FleetDeviceReport.Result =
                first.devices[index].result == .completed ? .skipped : .completed
            XCTAssertEqual(device.result, expected, "\(device.device): \(device.failure?.message ?? "")")
            XCTAssertEqual(centrals[index].snapshots[0].images[.application]?.sha256, sha, device.device)
        }
    }

    func testAnInterruptedRunResumesFromItsStateFile() async throws {
        let configurations = (0..<12).map { FleetFixtures.device($0, kind: .secureApp, firmware: "1.0.0") }
        let (adapter, centrals) = try FleetAdapter.simulated(configurations)
        let url = try FleetFixtures.temporaryFolder(self).appendingPathComponent("rollout.state")
        let completed = Locked(0)
        let first = await run(
            try fleet(
                adapter, count: 12, concurrency: 2, state: try await FleetStateFile(url: url, inventory: "v1")
            )
        ) { event in
            guard case .finished(let report) = event, report.result == .completed else { return false }
            return completed.withLock { count in
                count += 1
                return count == 4
            }
        }
        let done = first.devices.filter { $0.result == .completed }.map(\.device)
        XCTAssertGreaterThanOrEqual(done.count, 4)
        XCTAssertLessThan(done.count, 12)
        let attemptsAfterFirst = centrals.map { $0.snapshots[0].connectionAttempts }

        let state = try await FleetStateFile(url: url, inventory: "v1")
        for device in first.devices {
            XCTAssertEqual(
                state.entry(for: device.device) != nil, done.contains(device.device), device.device)
        }
        do {
            _ = try await FleetStateFile(url: url, inventory: "another inventory")
            XCTFail("a state file of another inventory was opened")
        } catch {}

        let second = try await fleet(adapter, count: 12, concurrency: 4, state: state).run()
        XCTAssertTrue(second.succeeded)
        for (index, device) in second.devices.enumerated() {
            if done.contains(device.device) {
                XCTAssertEqual(device.result, .skipped)
                XCTAssertEqual(device.reason, "done in an earlier run (state file)")
                XCTAssertEqual(
                    centrals[index].snapshots[0].connectionAttempts, attemptsAfterFirst[index],
                    "touched again")
            } else if device.result == .skipped {
                // Aborted after the device had validated the image: it runs the new version.
                XCTAssertEqual(device.reason, "up to date", device.device)
                XCTAssertEqual(first.devices[index].result, .aborted, device.device)
            } else {
                XCTAssertEqual(
                    device.result, .completed, "\(device.device): \(device.failure?.message ?? "")")
            }
            XCTAssertEqual(centrals[index].snapshots[0].firmwareRevision, "2.0.0", device.device)
        }
        let reopened = try await FleetStateFile(url: url, inventory: "v1")
        XCTAssertEqual(reopened.entry(for: second.devices[11].device)?.result, "completed")
    }
}
