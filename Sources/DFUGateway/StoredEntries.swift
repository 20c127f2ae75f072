import DFURollout
import DFUSupport
import Foundation
import GATT

/// The inventory entries a gateway has read of a rollout whose store keeps them per device
/// (`RolloutStore.inventoryEntries`): read for all the devices it reaches at once, with those
/// of the addresses next to them, when it first sees them, so that a claimed device costs no
/// store call of its own (issue 39).
final class StoredEntries: Sendable {
    private struct Read {
        /// Every name asked about.
        var asked: Set<String> = []
        /// The entries of those the rollout lists, with its folder and frame; nil before the
        /// store told them.
        var found: RolloutInventoryEntries?
    }

    let rollout: String
    private let read = Locked(Read())

    init(rollout: String) { self.rollout = rollout }

    /// Reads the entries of `devices` (names as the store keeps them) and of the addresses next
    /// to each, those not asked about before, in one call.
    func read(_ devices: some Sequence<String>, from store: any RolloutStore) async throws {
        let wanted = Set(devices.flatMap(Self.withNeighbours))
        // filtered, not `subtracting`: that walks the whole of `asked` for each device claimed
        let unasked = read.withLock { read in wanted.filter { !read.asked.contains($0) } }
        guard !unasked.isEmpty else { return }
        let found = try await store.inventoryEntries(of: rollout, named: unasked)
        read.withLock { read in
            read.asked.formUnion(unasked)
            guard let found else { return }
            if read.found == nil {
                read.found = found
            } else {
                read.found?.entries.merge(found.entries) { first, _ in first }
            }
        }
    }

    /// The inventory file of `device`'s entry, the folder its package paths are relative to, and
    /// which of the addresses next to it the rollout lists; read from the store first when not
    /// read yet. nil when the rollout does not list the device.
    func entry(of device: String, from store: any RolloutStore) async throws
        -> (entry: Data, folder: String, neighbours: Set<BluetoothAddress>)?
    {
        try await read([device], from: store)
        return read.withLock { read in
            guard let found = read.found, let file = found.file(of: device) else { return nil }
            let neighbours = Self.neighbours(of: device).filter { found.entries[$0.description] != nil }
            return (file, found.folder, Set(neighbours))
        }
    }

    /// The addresses next to a device's (protocol doc §0.4); none for a device named by name.
    static func neighbours(of device: String) -> [BluetoothAddress] {
        guard case .address(let address) = DeviceIdentifier(device) else { return [] }
        return [address.incremented, address.decremented]
    }

    /// The name and those of its neighbours, as the store keeps addresses (upper case).
    private static func withNeighbours(_ device: String) -> [String] {
        [device] + neighbours(of: device).map(\.description)
    }
}
