import DFURollout
import Foundation
import TestSupport
import XCTest

/// `rollout retry` on PostgreSQL, as an operator role: a rollout halted by its canary is tried
/// again as a new rollout of the devices it left, which a gateway then completes.
final class RolloutRetryTests: PostgresTestCase {
    func testAHaltedRolloutsDevicesAreUpdatedByItsRetry() async throws {
        let fleet = try GatewayFleet(self, backend: backend, devices: 3, block: 4)
        try await fleet.createRollout("halted", package: "secure/secure_app_20_hex_signed.zip", canary: 1)
        let failing = try await fleet.startGateway(
            "gw0", sees: [0, 1, 2], realTimeFactor: 0, faults: [0: "reject-connect=1000"], lease: 5)
        let failingStatus = try await failing.wait(within: .seconds(120))
        XCTAssertEqual(failingStatus, 0, failing.standardError)

        let operatorRole = fleet.role("operator")
        let operate = { (arguments: [String]) in
            try await CLIRunner.run(
                ["rollout"] + arguments + ["--store", fleet.url(as: operatorRole), "--json"],
                environment: ["DFU_UPDATE_STORE_PASSWORD": "pw-\(operatorRole)"])
        }
        let retried = try await operate(["retry", fleet.rollout("halted")])
        XCTAssertEqual(retried.status, 0, retried.stderr)
        let created = try XCTUnwrap(try retried.jsonLines().first)
        let retry = fleet.rollout("halted") + "-retry-1"
        XCTAssertEqual(try created.string("rollout"), retry)
        XCTAssertEqual(try created.int("devices"), 3)
        XCTAssertEqual(try created.int("failed"), 1)

        // while the retry has devices to update, a second retry would update them twice
        let again = try await operate(["retry", fleet.rollout("halted"), "--as", "twice"])
        XCTAssertEqual(again.status, 64)
        XCTAssertTrue(try again.errorObject().string("message").hasPrefix("rollout \(retry) (active) has"))

        let updating = try await fleet.startGateway("gw1", sees: [0, 1, 2], realTimeFactor: 0, lease: 5)
        let updatingStatus = try await updating.wait(within: .seconds(120))
        XCTAssertEqual(updatingStatus, 0, updating.standardError)

        let store = try await backend.open()
        let original = try await store.status(of: fleet.rollout("halted"))
        let status = try await store.status(of: retry)
        try await store.close()
        XCTAssertEqual(original.summary.state, .halted, "the retried rollout is left as it was")
        XCTAssertEqual(original.devices.map(\.result), [.failed, nil, nil])
        XCTAssertEqual(status.summary.state, .completed)
        XCTAssertEqual(status.summary.canary, 1)
        XCTAssertEqual(status.devices.map(\.device), fleet.devices)
        XCTAssertEqual(status.devices.map(\.result), [.completed, .completed, .completed])
        let activations = GatewayOutput.activations([updating])
        XCTAssertEqual(fleet.devices.map { activations[$0] }, [1, 1, 1])

        let nothing = try await operate(["retry", retry])
        XCTAssertEqual(nothing.status, 64)
        XCTAssertEqual(
            try nothing.errorObject().string("message"),
            "every device of rollout \(retry) was updated or up to date; there is nothing to retry")
    }
}
