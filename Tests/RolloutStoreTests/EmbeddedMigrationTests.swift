import RolloutStoreTesting
import XCTest

@testable import DFURollout

/// The embedded store's schema steps on a file an older version wrote.
final class EmbeddedMigrationTests: XCTestCase {
    private var backend: EmbeddedStoreUnderTest!

    override func setUpWithError() throws { backend = try EmbeddedStoreUnderTest() }
    override func tearDown() { backend.remove() }

    /// A file from before the kept counts (schema 2) gets them, its rollouts' results counted.
    func testMigrationCountsExistingRollouts() async throws {
        let contract = RolloutStoreContract(backend: backend)
        let spec = try await RolloutStoreContract.withResults(contract)
        let file = try SQLiteConnection(path: backend.path)
        try file.execute("DROP TABLE rollout_tallies; PRAGMA user_version = 2")
        file.close()
        let store = try backend.open()
        try await contract.assertCountsExact(store, spec)
        try await store.close()
    }
}
