import DFURollout
import DFURolloutPostgres
import PostgresNIO
import RolloutStoreTesting
import XCTest

/// What only the PostgreSQL store has: its roles and grants, migrations, and a server restarted
/// under it.
final class PostgresServerTests: PostgresTestCase {
    /// Applying the migrations again changes nothing; each step is recorded once.
    func testMigrationsAreRecordedOnce() async throws {
        try await backend.connect(migrate: true).close()
        let versions = try await backend.withClient { client in
            try await client.query("SELECT version FROM schema_migrations ORDER BY version").decode(Int.self)
                .reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(versions, [1, 2, 3, 4, 5, 6, 7, 8])
    }

    /// A store migrated from before the kept counts (step 4) counts its rollouts' results.
    func testMigrationCountsExistingRollouts() async throws {
        let contract = RolloutStoreContract(backend: backend)
        let spec = try await RolloutStoreContract.withResults(contract)
        try await backend.withClient { client in
            try await client.query("DROP TABLE rollout_tallies")
            try await client.query("DELETE FROM schema_migrations WHERE version = 4")
        }
        let store = try await backend.connect(migrate: true)
        try await contract.assertCountsExact(store, spec)
        try await store.close()
    }

    /// A gateway's role claims and reports but cannot create or steer a rollout; an operator's
    /// creates and steers but cannot claim.
    func testRolesMayDoOnlyTheirPart() async throws {
        let gateway = try await loginRole("rollout_test_gateway", in: "dfu_rollout_gateway")
        let operatorStore = try await loginRole("rollout_test_operator", in: "dfu_rollout_operator")
        let spec = RolloutFixtures.spec(devices: 2)
        try await assertPermissionDenied { try await gateway.create(spec) }
        try await operatorStore.create(spec)
        try await assertPermissionDenied { try await gateway.apply(.pause, to: spec.name) }
        try await assertPermissionDenied {
            _ = try await operatorStore.claim(spec.name, for: "op", among: nil, limit: 1, lease: .seconds(60))
        }
        let claims = try await gateway.claim(spec.name, for: "gw", among: nil, limit: 2, lease: .seconds(60))
        XCTAssertEqual(claims.count, 2)
        try await gateway.report(claims[0], DeviceOutcome(result: .completed))
        let bytes = try await gateway.package(RolloutFixtures.package.sha256, of: spec.name)
        XCTAssertEqual(bytes, RolloutFixtures.package.bytes)
        let entries = try await gateway.inventoryEntries(of: spec.name, named: [spec.devices[1].device])
        XCTAssertNil(entries, "a rollout made without an inventory has no entries")
        let cancelled = try await operatorStore.apply(.cancel, to: spec.name)
        XCTAssertEqual(cancelled, .cancelled)
        let stateSeenByGateway = try await gateway.renew(claims[1], lease: .seconds(60)).rolloutState
        XCTAssertEqual(stateSeenByGateway, .cancelled)
        try await gateway.close()
        try await operatorStore.close()
    }

    /// The server stopped and started under a connected store: a call while it is down fails
    /// within the store's call timeout; once it is back the store reconnects by itself, the claim
    /// taken before still reports, and nothing written before is lost.
    func testReconnectsAfterTheServerRestarts() async throws {
        let store = try await PostgresRolloutStore.connect(
            to: backend.server.location, password: backend.server.password, callTimeout: .seconds(2))
        let spec = RolloutFixtures.spec(devices: 2)
        try await store.create(spec)
        let claims = try await store.claim(spec.name, for: "gw", among: nil, limit: 1, lease: .seconds(600))
        let claim = try XCTUnwrap(claims.first)
        try await backend.server.stop()
        let start = ContinuousClock.now
        do {
            _ = try await store.renew(claim, lease: .seconds(600))
            XCTFail("renewed while the server was down")
        } catch RolloutStoreError.storage(let failure) {
            XCTAssertLessThan(ContinuousClock.now - start, .seconds(5), "a call waited past its timeout")
            XCTAssertEqual(failure.kind, .unreachable, failure.message)
        }
        try await backend.server.start()
        let deadline = ContinuousClock.now + .seconds(30)
        var reported = false
        while !reported && ContinuousClock.now < deadline {
            do {
                try await store.report(claim, DeviceOutcome(result: .completed))
                reported = true
            } catch RolloutStoreError.storage {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        XCTAssertTrue(reported, "the store did not reconnect within 30 s")
        let status = try await store.status(of: spec.name)
        XCTAssertEqual(status.devices.map(\.result), [.completed, nil])
        XCTAssertEqual(status.devices[0].attempts, 1)
        try await store.close()
    }

    /// A login role of `group` with a password of its own, and a store connected as it.
    private func loginRole(_ name: String, in group: String) async throws -> PostgresRolloutStore {
        let password = UUID().uuidString
        try await backend.createLoginRole(name, in: group, password: password)
        var location = backend.server.location
        location.user = name
        return try await PostgresRolloutStore.connect(to: location, password: password)
    }

    private func assertPermissionDenied(_ body: () async throws -> Void, line: UInt = #line) async throws {
        do {
            try await body()
            XCTFail("a role did what it may not", line: line)
        } catch RolloutStoreError.storage(let failure) {
            XCTAssertEqual(failure.kind, .permission, line: line)
            XCTAssertTrue(failure.message.hasPrefix("PostgreSQL 42501"), failure.message, line: line)
            XCTAssertTrue(failure.message.contains("dfu_rollout_gateway"), failure.message, line: line)
        }
    }
}
