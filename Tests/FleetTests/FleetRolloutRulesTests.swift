import DFUFleet
import DFURollout
import FirmwareUpdate
import Foundation
import SimulatedFleet
import XCTest

/// The fleet's canary and failure limit are the rollout store's rules: a fleet run one device
/// at a time starts exactly the devices a store's rollout with the same settings lets a
/// gateway claim when each claimed device ends as it did in the fleet.
final class FleetRolloutRulesTests: XCTestCase {
    private let package = "app"

    func testAFirstCanaryFailureStopsTheCanaryNotYetStarted() async throws {
        try await assertFleetAndStoreAgree(
            failing: [0], canary: 2, maxFailures: nil, started: 1,
            halt: "canary device \(name(0)) ended failed; no other device was started")
    }

    func testASecondCanaryFailureStopsTheRest() async throws {
        try await assertFleetAndStoreAgree(
            failing: [1], canary: 2, maxFailures: nil, started: 2,
            halt: "canary device \(name(1)) ended failed; no other device was started")
    }

    func testTheFailureLimitStopsTheRest() async throws {
        try await assertFleetAndStoreAgree(
            failing: [2], canary: 0, maxFailures: 1, started: 3,
            halt: "1 device failed (--max-failures 1); no more updates are started")
    }

    func testAPassedCanaryLetsTheRestRunToTheFailureLimit() async throws {
        try await assertFleetAndStoreAgree(
            failing: [1, 3], canary: 1, maxFailures: 2, started: 4,
            halt: "2 devices failed (--max-failures 2); no more updates are started")
    }

    /// The name of the simulated device at `index`.
    private func name(_ index: Int) -> String {
        FleetFixtures.device(index, kind: .secureApp).address.description
    }

    /// Runs six devices (those at `failing` refuse the package) as a fleet and as a store's
    /// rollout; both start the first `started` devices and no other, and the fleet halts once,
    /// saying `halt`.
    private func assertFleetAndStoreAgree(
        failing: Set<Int>, canary: Int, maxFailures: Int?, started: Int, halt: String,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        var configurations = (0..<6).map { FleetFixtures.device($0, kind: .secureApp, firmware: "1.0.0") }
        for index in failing { configurations[index].hardwareVersion = 51 }
        let devices = configurations.map(\.address.description)
        var options = FleetFixtures.options(concurrency: 1)
        options.canary = canary
        options.maximumFailures = maxFailures
        let (adapter, _) = try FleetAdapter.simulated(configurations)
        let fleet = try Fleet(
            inventory: try FleetInventory(
                defaults: .init(package: package), devices: devices.map { FleetDeviceEntry(device: $0) }),
            packages: [package: FirmwarePackage(try FleetFixtures.secure(version: 20000, seed: 9))],
            adapters: [adapter], options: options)
        let log = EventLog()
        let report = await fleet.run { log.append($0) }

        let fleetStarted = report.devices.filter { $0.result != .notStarted }.map(\.device)
        XCTAssertEqual(fleetStarted, Array(devices.prefix(started)), "the fleet", file: file, line: line)
        let storeClaimed = try await claimedByStore(
            devices: devices, canary: canary, maxFailures: maxFailures, endingAs: report)
        XCTAssertEqual(storeClaimed, fleetStarted, "the store and the fleet disagree", file: file, line: line)
        let halts = log.all.compactMap { if case .halted(let reason) = $0 { reason } else { nil } }
        XCTAssertEqual(halts, [halt], file: file, line: line)
    }

    /// The devices a gateway claims, one at a time, from a rollout of `devices` in an embedded
    /// store, each reported with its result in `report`.
    private func claimedByStore(
        devices: [String], canary: Int, maxFailures: Int?, endingAs report: FleetReport
    ) async throws -> [String] {
        let folder = try FleetFixtures.temporaryFolder(self)
        let store = try EmbeddedRolloutStore(path: folder.appendingPathComponent("rollouts.sqlite").path)
        let bytes = RolloutPackage(name: package, bytes: Data([1, 2, 3]))
        try await store.create(
            RolloutSpec(
                name: "agreement", packages: [bytes],
                devices: devices.map { RolloutDevice(device: $0, packageSHA256: bytes.sha256) },
                canary: canary, maxFailures: maxFailures, concurrency: 1))
        var claimed: [String] = []
        while let claim = try await store.claim(
            "agreement", for: "gateway", among: nil, limit: 1, lease: .seconds(60)
        ).first {
            claimed.append(claim.device)
            let fleetResult = try XCTUnwrap(report.device(claim.device)?.result)
            let result = try XCTUnwrap(DeviceResult(fleetResult), "the fleet did not start \(claim.device)")
            try await store.report(claim, DeviceOutcome(result: result))
        }
        await store.close()
        return claimed
    }
}
