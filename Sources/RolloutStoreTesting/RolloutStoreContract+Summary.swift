import DFURollout
import Foundation
import XCTest

/// The reads a gateway and `rollout list` make instead of the whole status.
extension RolloutStoreContract {
    /// A summary says what the status says, without the devices; the devices read by name are
    /// the status's own, in inventory order, names the rollout lacks left out; pages read by
    /// position are the status's devices, and the gateways its gateways.
    public func summaryAndNamedDevicesMatchStatus() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 12, canary: 2, maxFailures: 5))
        try await assertSummaryMatchesStatus(store, spec)
        let canary = try await store.claim(
            spec.name, for: "gw-a", among: nil, limit: 2, lease: RolloutFixtures.longLease)
        try await store.report(canary[0], DeviceOutcome(result: .completed))
        try await store.report(canary[1], DeviceOutcome(result: .skipped))
        let held = try await store.claim(
            spec.name, for: "gw-b", among: nil, limit: 3, lease: RolloutFixtures.longLease)
        try await store.report(held[0], DeviceOutcome(result: .failed, error: "lost link"))
        try await store.report(held[1], DeviceOutcome(result: .aborted))
        try await assertSummaryMatchesStatus(store, spec)
        let status = try await store.status(of: spec.name)
        let wanted = [5, 0, 3, 4, 11].map { spec.devices[$0].device }
        let named = try await store.devices(
            of: spec.name, named: Set(wanted + ["C0:DE:FF:FF:FF:FF", "kitchen"]))
        XCTAssertEqual(named, status.devices.filter { wanted.contains($0.device) })
        XCTAssertEqual(named.map(\.device), [0, 3, 4, 5, 11].map { spec.devices[$0].device })
        XCTAssertEqual(named.first(where: { $0.device == held[2].device })?.held, true)
        var pages: [DeviceStatus] = []
        for position in stride(from: 0, to: 15, by: 5) {
            pages += try await store.devices(of: spec.name, from: position, limit: 5)
        }
        XCTAssertEqual(pages, status.devices, "pages of 5 from 0, 5 and 10: every device once, in order")
        let gateways = try await store.gateways(of: spec.name)
        XCTAssertEqual(gateways, status.gateways)
        let none = try await store.devices(of: spec.name, named: [])
        XCTAssertEqual(none, [])
        try await store.apply(.cancel, to: spec.name)
        try await assertSummaryMatchesStatus(store, spec)
        do {
            _ = try await store.summary(of: "no-such-rollout")
            XCTFail("a summary of a rollout the store lacks")
        } catch RolloutStoreError.noSuchRollout(let name) {
            XCTAssertEqual(name, "no-such-rollout")
        }
        try await store.close()
    }

    /// Each device's inventory entry is kept and read by name, with the inventory's folder:
    /// names the rollout lacks and devices stored without an entry are left out; a rollout made
    /// without an inventory has none.
    public func inventoryEntriesAreReadByName() async throws {
        var spec = RolloutFixtures.spec(devices: 5)
        spec.inventory = RolloutInventory(bytes: Data("whole".utf8), folder: "/srv/rollouts")
        for index in 0..<4 { spec.devices[index].inventoryEntry = Data("entry \(index)".utf8) }
        let store = try await backend.open()
        try await store.create(spec)
        let names = [1, 3, 4].map { spec.devices[$0].device }
        let read = try await store.inventoryEntries(
            of: spec.name, named: Set(names + ["C0:DE:FF:FF:FF:FF", "kitchen"]))
        XCTAssertEqual(
            read,
            RolloutInventoryEntries(
                folder: "/srv/rollouts",
                entries: [names[0]: Data("entry 1".utf8), names[1]: Data("entry 3".utf8)]))
        let none = try await store.inventoryEntries(of: spec.name, named: [])
        XCTAssertEqual(none, RolloutInventoryEntries(folder: "/srv/rollouts", entries: [:]))
        let bare = RolloutFixtures.spec(devices: 1)
        try await store.create(bare)
        let withoutInventory = try await store.inventoryEntries(
            of: bare.name, named: [bare.devices[0].device])
        XCTAssertNil(withoutInventory)
        do {
            _ = try await store.inventoryEntries(of: "no-such-rollout", named: Set(names))
            XCTFail("the entries of a rollout the store lacks")
        } catch RolloutStoreError.noSuchRollout(let name) {
            XCTAssertEqual(name, "no-such-rollout")
        }
        try await store.close()
    }

    /// A rollout's inventory entry frame is kept once, with the inventory, and comes back with
    /// the entries it frames (each the entry alone), which it makes inventory files.
    public func inventoryEntryFrameIsKeptOnce() async throws {
        var spec = RolloutFixtures.spec(devices: 3)
        let frame = InventoryEntryFrame(
            prefix: Data(#"{"rules": [], "devices": ["#.utf8), suffix: Data("]}\n".utf8))
        spec.inventory = RolloutInventory(
            bytes: Data("whole".utf8), folder: "/srv/rollouts", entryFrame: frame)
        for index in 0..<2 { spec.devices[index].inventoryEntry = Data("{\"n\": \(index)}".utf8) }
        let store = try await backend.open()
        try await store.create(spec)
        let inventory = try await store.inventory(of: spec.name)
        XCTAssertEqual(inventory, spec.inventory)
        let names = spec.devices.map(\.device)
        let read = try await store.inventoryEntries(of: spec.name, named: Set(names))
        XCTAssertEqual(read?.frame, frame)
        XCTAssertEqual(read?.entries, [names[0]: Data(#"{"n": 0}"#.utf8), names[1]: Data(#"{"n": 1}"#.utf8)])
        XCTAssertEqual(
            read?.file(of: names[1]), Data(#"{"rules": [], "devices": [{"n": 1}]}"#.utf8) + Data("\n".utf8))
        XCTAssertNil(read?.file(of: names[2]), "a device stored without an entry")
        try await store.close()
    }

    /// A device's name and inventory entry come back as they were given, whatever characters
    /// and bytes they hold (a back end's bulk format escapes some of them), in inventory order,
    /// with and without a package of their own; an empty entry is kept, apart from none.
    public func namesAndEntriesKeepEveryByte() async throws {
        var spec = RolloutFixtures.spec(devices: 4)
        spec.inventory = RolloutInventory(bytes: Data("whole".utf8), folder: "/srv/rollouts")
        let names = ["tab\there", "line\nand\r\nreturn", #"back\slash \N \x00"#, "näme ✓ 'quoted' \"too\""]
        let entries = [Data(0...255), Data(#"{"device": "a\tb\\c"}"#.utf8), Data(), Data([0x5C, 0x0A])]
        for index in names.indices {
            spec.devices[index].device = names[index]
            spec.devices[index].inventoryEntry = entries[index]
        }
        spec.devices[1].packageSHA256 = nil
        let store = try await backend.open()
        try await store.create(spec)
        let status = try await store.status(of: spec.name)
        XCTAssertEqual(status.devices.map(\.device), names)
        let read = try await store.inventoryEntries(of: spec.name, named: Set(names))
        XCTAssertEqual(read?.entries, Dictionary(uniqueKeysWithValues: zip(names, entries)))
        var without = RolloutFixtures.spec(devices: 2)
        without.inventory = spec.inventory
        without.devices[0].inventoryEntry = Data("only one".utf8)
        try await store.create(without)
        let one = try await store.inventoryEntries(
            of: without.name, named: Set(without.devices.map(\.device)))
        XCTAssertEqual(one?.entries, [without.devices[0].device: Data("only one".utf8)])
        try await store.close()
    }

    private func assertSummaryMatchesStatus(
        _ store: any RolloutStore, _ spec: RolloutSpec, line: UInt = #line
    ) async throws {
        let status = try await store.status(of: spec.name)
        let summary = try await store.summary(of: spec.name)
        // status's counts come from its devices, the summary's from the kept counts
        XCTAssertEqual(summary, status.summary, line: line)
        XCTAssertEqual(summary.pending, status.devices.count { $0.result == nil }, line: line)
    }
}
