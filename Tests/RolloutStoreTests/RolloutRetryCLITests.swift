import DFURollout
import Foundation
import RolloutStoreTesting
import TestSupport
import XCTest

/// When `rollout retry` refuses, on an embedded store: it never makes a rollout that would
/// update a device another rollout may still update.
final class RolloutRetryCLITests: XCTestCase {
    func testARetryWaitsUntilNoGatewayMayUpdateTheDevices() async throws {
        let (_, inventory, store) = try RolloutCLI.workspace(self, devices: 3)
        let created = try await RolloutCLI.run(["create", "spring", inventory, "--store", store])
        XCTAssertEqual(created.status, 0)

        let active = try await RolloutCLI.run(["retry", "spring", "--store", store])
        XCTAssertEqual(active.status, 64)
        XCTAssertEqual(
            try active.object.object("error").string("message"),
            "rollout spring is active: its gateways may still update its devices; "
                + "`rollout cancel spring` first, or wait until it completes")

        // a gateway completes one device and holds another when the rollout is cancelled
        let gateway = try EmbeddedRolloutStore(path: store)
        let claims = try await gateway.claim(
            "spring", for: "hall-a", among: nil, limit: 2, lease: .seconds(60))
        XCTAssertEqual(claims.count, 2)
        try await gateway.report(claims[0], DeviceOutcome(result: .completed))
        let cancelled = try await RolloutCLI.run(["cancel", "spring", "--store", store])
        XCTAssertEqual(cancelled.status, 0)
        let held = try await RolloutCLI.run(["retry", "spring", "--store", store])
        XCTAssertEqual(held.status, 64)
        XCTAssertEqual(
            try held.object.object("error").string("message"),
            "a gateway still holds 1 device of rollout spring (\(claims[1].device)); "
                + "retry once its updates end (`rollout status spring`)")

        try await gateway.report(claims[1], DeviceOutcome(result: .aborted, error: "cancelled"))
        await gateway.close()
        let retried = try await RolloutCLI.run(["retry", "spring", "--store", store, "--as", "autumn"])
        XCTAssertEqual(retried.status, 0)
        XCTAssertEqual(try retried.object.string("rollout"), "autumn")
        XCTAssertEqual(try retried.object.int("devices"), 2)
        XCTAssertEqual(try retried.object.int("failed"), 1)

        let stored = try EmbeddedRolloutStore(path: store)
        let autumn = try await stored.status(of: "autumn")
        let entries = try await stored.inventoryEntries(
            of: "autumn", named: Set(autumn.devices.map(\.device)))
        await stored.close()
        XCTAssertEqual(autumn.devices.map(\.device), [claims[1].device, RolloutFixtures.deviceName(2)])
        XCTAssertEqual(autumn.summary.state, .active)
        XCTAssertEqual(entries?.entries.count, 2, "each device keeps its entry, as `rollout create` keeps it")

        let twice = try await RolloutCLI.run(["retry", "spring", "--store", store])
        XCTAssertEqual(twice.status, 64)
        XCTAssertTrue(
            try twice.object.object("error").string("message").hasPrefix(
                "rollout autumn (active) has \(claims[1].device) and others of rollout spring still to update"
            ))
    }
}
