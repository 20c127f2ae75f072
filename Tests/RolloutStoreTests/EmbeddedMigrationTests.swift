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
        try file.execute(
            Self.withoutVersion6
                + "DROP TABLE rollout_tallies; ALTER TABLE devices DROP COLUMN inventory_entry; PRAGMA user_version = 2"
        )
        file.close()
        let store = try backend.open()
        try await contract.assertCountsExact(store, spec)
        try await store.close()
    }

    /// A file from before the inventory entries (schema 4) gets their column; the devices of its
    /// rollouts have none (their gateways read the whole inventory).
    func testMigrationAddsInventoryEntries() async throws {
        var spec = RolloutFixtures.spec(devices: 2)
        spec.inventory = RolloutInventory(bytes: Data("device\n".utf8), folder: "/srv/rollouts")
        let old = try backend.open()
        try await old.create(spec)
        try await old.close()
        let file = try SQLiteConnection(path: backend.path)
        try file.execute(
            Self.withoutVersion6 + "ALTER TABLE devices DROP COLUMN inventory_entry; PRAGMA user_version = 4")
        file.close()
        let store = try backend.open()
        let entries = try await store.inventoryEntries(of: spec.name, named: Set(spec.devices.map(\.device)))
        XCTAssertEqual(entries, RolloutInventoryEntries(folder: "/srv/rollouts", entries: [:]))
        var newer = RolloutFixtures.spec(devices: 1)
        newer.inventory = spec.inventory
        newer.devices[0].inventoryEntry = Data("device\nC0:DE:00:00:00:00\n".utf8)
        try await store.create(newer)
        let kept = try await store.inventoryEntries(of: newer.name, named: [newer.devices[0].device])
        XCTAssertEqual(kept?.entries, [newer.devices[0].device: Data("device\nC0:DE:00:00:00:00\n".utf8)])
        try await store.close()
    }

    /// A file from before the entry frames (schema 5) gets their columns; its rollouts' entries,
    /// whole files, read as they were, without a frame, beside a new rollout's framed entries.
    func testMigrationAddsEntryFrames() async throws {
        var spec = RolloutFixtures.spec(devices: 1)
        spec.inventory = RolloutInventory(bytes: Data("device\n".utf8), folder: "/srv/rollouts")
        spec.devices[0].inventoryEntry = Data("device\nC0:DE:00:00:00:00\n".utf8)
        let old = try backend.open()
        try await old.create(spec)
        try await old.close()
        let file = try SQLiteConnection(path: backend.path)
        try file.execute(Self.withoutVersion6 + "PRAGMA user_version = 5")
        file.close()
        let store = try backend.open()
        let device = spec.devices[0].device
        let kept = try await store.inventoryEntries(of: spec.name, named: [device])
        XCTAssertEqual(
            kept,
            RolloutInventoryEntries(
                folder: "/srv/rollouts", entries: [device: spec.devices[0].inventoryEntry!]))
        var framed = RolloutFixtures.spec(devices: 1)
        framed.inventory = RolloutInventory(
            bytes: Data("device\n".utf8), folder: "/srv/rollouts",
            entryFrame: InventoryEntryFrame(prefix: Data("device\r\n".utf8), suffix: Data("\r\n".utf8)))
        framed.devices[0].inventoryEntry = Data("C0:DE:00:00:00:00".utf8)
        try await store.create(framed)
        let read = try await store.inventoryEntries(of: framed.name, named: [framed.devices[0].device])
        XCTAssertEqual(read?.file(of: framed.devices[0].device), Data("device\r\nC0:DE:00:00:00:00\r\n".utf8))
        try await store.close()
    }

    /// Takes a file back to schema 5 (the columns of version 6 dropped).
    private static let withoutVersion6 = """
        ALTER TABLE rollouts DROP COLUMN inventory_entry_prefix;
        ALTER TABLE rollouts DROP COLUMN inventory_entry_suffix;
        ALTER TABLE devices DROP COLUMN inventory_entry_alone;
        """
}
