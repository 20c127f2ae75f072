import DFURollout
import DFURolloutPostgres
import PostgresNIO
import RolloutStoreTesting
import XCTest

/// A device names only a rollout and a package the store has (schema step 7 checks them once per
/// statement, where foreign keys checked them row by row).
final class PostgresDeviceReferenceTests: PostgresTestCase {
    /// Inserts naming an unknown package or rollout are refused whole, with the foreign-key code;
    /// the same insert naming the rollout's own package is taken.
    func testADeviceNamesOnlyARolloutAndAPackageTheStoreHas() async throws {
        let store = try await backend.connect(migrate: true)
        let spec = RolloutFixtures.spec(devices: 1)
        try await store.create(spec)
        try await store.close()
        let known = RolloutFixtures.package.sha256
        let unknown = String(repeating: "0", count: 64)
        try await backend.withClient { client in
            let id = try await client.query("SELECT id FROM rollouts WHERE name = \(spec.name)")
                .decode(Int64.self).reduce(into: Int64(0)) { $0 = $1 }
            try await assertRefused(client, [(id, known), (id, unknown)], "a package the rollout lacks")
            try await assertRefused(client, [(id + 1, known)], "a rollout the store lacks")
            try await assertRefused(client, [(id, nil), (id + 1, nil)], "a rollout the store lacks")
            try await insert(client, [(id, known), (id, nil)])
            let count = try await client.query("SELECT count(*) FROM devices WHERE rollout_id = \(id)")
                .decode(Int.self).reduce(into: 0) { $0 = $1 }
            XCTAssertEqual(count, 3, "the rollout's device and the two taken")
        }
    }

    private func assertRefused(
        _ client: PostgresClient, _ devices: [(rollout: Int64, package: String?)], _ what: String,
        line: UInt = #line
    ) async throws {
        do {
            try await insert(client, devices)
            XCTFail("a device naming \(what) was stored", line: line)
        } catch let error as PSQLError {
            XCTAssertEqual(error.serverInfo?[.sqlState], "23503", String(reflecting: error), line: line)
        }
    }

    /// One statement of `devices`, each with an address of its own (an empty digest for none).
    private func insert(_ client: PostgresClient, _ devices: [(rollout: Int64, package: String?)])
        async throws
    {
        let names = devices.map { _ in "AA:00:\(UUID().uuidString.prefix(8))" }
        try await client.query(
            """
            INSERT INTO devices (rollout_id, device, position, package_sha256)
            SELECT u.rollout, u.device_name, 1000 + u.ordinal, nullif(u.digest, '')
            FROM unnest(\(devices.map(\.rollout))::bigint[], \(names)::text[], \(devices.map { $0.package ?? "" })::text[])
                WITH ORDINALITY AS u(rollout, device_name, digest, ordinal)
            """)
    }
}
