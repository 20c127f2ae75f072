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
        try await succeeds(["create", "spring", inventory, "--store", store])

        let whileActive = try await refusal(["retry", "spring", "--store", store])
        XCTAssertEqual(
            whileActive,
            "rollout spring is active: its gateways may still update its devices; "
                + "`rollout cancel spring` first, or wait until it completes")

        // a gateway completes one device and holds another when the rollout is cancelled
        let gateway = try EmbeddedRolloutStore(path: store)
        let claims = try await gateway.claim(
            "spring", for: "hall-a", among: nil, limit: 2, lease: .seconds(60))
        XCTAssertEqual(claims.count, 2)
        try await gateway.report(claims[0], DeviceOutcome(result: .completed))
        try await succeeds(["cancel", "spring", "--store", store])
        let whileHeld = try await refusal(["retry", "spring", "--store", store])
        XCTAssertEqual(
            whileHeld,
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

        let twice = try await refusal(["retry", "spring", "--store", store])
        XCTAssertTrue(
            twice.hasPrefix(
                "rollout autumn (active) has \(claims[1].device) and others of rollout spring still to update"
            ))
    }

    /// A gateway still updating one of the devices for another rollout, cancelled or halted,
    /// keeps the retry back too.
    func testARetryWaitsForAnUpdateAnotherRolloutHasInProgress() async throws {
        let (_, inventory, store) = try RolloutCLI.workspace(self, devices: 2)
        try await succeeds(["create", "spring", inventory, "--store", store])
        try await succeeds(["create", "summer", inventory, "--store", store])
        let gateway = try EmbeddedRolloutStore(path: store)
        let claims = try await gateway.claim(
            "summer", for: "hall-a", among: nil, limit: 1, lease: .seconds(60))
        XCTAssertEqual(claims.count, 1)
        try await succeeds(["cancel", "summer", "--store", store])
        try await succeeds(["cancel", "spring", "--store", store])

        let whileHeld = try await refusal(["retry", "spring", "--store", store])
        XCTAssertEqual(
            whileHeld,
            "rollout summer (cancelled) has \(claims[0].device) of rollout spring still to update; "
                + "retry once its updates end (`rollout status summer`)")

        try await gateway.report(claims[0], DeviceOutcome(result: .aborted, error: "cancelled"))
        await gateway.close()
        try await succeeds(["retry", "spring", "--store", store])
    }

    private func succeeds(_ arguments: [String]) async throws {
        let output = try await RolloutCLI.run(arguments)
        XCTAssertEqual(output.status, 0, "\(arguments)")
    }

    /// The message of a `rollout` command that must be refused as a usage error.
    private func refusal(_ arguments: [String]) async throws -> String {
        let refused = try await RolloutCLI.run(arguments)
        XCTAssertEqual(refused.status, 64, "\(arguments)")
        return try refused.object.object("error").string("message")
    }
}
