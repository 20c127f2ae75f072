import DFUFleet
import DFURollout
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU

/// What a gateway needs of one rollout to update its devices: where each device's inventory
/// entry comes from (rules and defaults as `fleet` reads them), every package read and checked,
/// and the rollout's limit of devices per gateway. Loaded once per rollout from the store; for
/// a rollout with an inventory (as `rollout create` makes it), at a cost that does not grow
/// with the rollout (issue 39).
struct RolloutContext: Sendable {
    let rollout: String
    let entries: Entries
    /// By name: the path the inventory resolves it to.
    let packages: [String: FirmwarePackage]
    let namesByDigest: [String: String]
    let concurrency: Int

    enum Entries: Sendable {
        /// Each device's entry is in the store, read with those of the devices the gateway
        /// reaches, when it finds them.
        case stored(StoredEntries)
        /// A rollout whose store keeps its inventory whole (made by an older version): split
        /// into entries when loaded.
        case index(FleetInventoryIndex)
        /// A rollout made without an inventory (by the library): its devices, read whole when
        /// it is loaded, and their entries are their names alone.
        case bare(Set<DeviceIdentifier>)
    }

    /// A claimed device's inventory, with the package the store chose for it, and the rollout's
    /// other devices that could be taken for its bootloader, or it for theirs: those at the
    /// addresses next to its own (protocol doc §0.4). nil when the rollout does not list it.
    func inventory(for claim: DeviceClaim, device: DeviceIdentifier, store: any RolloutStore) async throws
        -> (inventory: FleetInventory, neighbours: Set<BluetoothAddress>)?
    {
        var addresses: [BluetoothAddress] = []
        if case .address(let address) = device { addresses = [address.incremented, address.decremented] }
        var inventory: FleetInventory
        var neighbours: Set<BluetoothAddress>
        switch entries {
        case .stored(let stored):
            guard let read = try await stored.entry(of: claim.device, from: store) else { return nil }
            inventory = try FleetInventory(data: read.entry, folder: URL(fileURLWithPath: read.folder))
            neighbours = read.neighbours
        case .index(let index):
            guard let listed = try index.inventory(of: device) else { return nil }
            inventory = listed
            neighbours = Set(addresses.filter { index.lists(.address($0)) })
        case .bare(let devices):
            guard devices.contains(device) else { return nil }
            inventory = try FleetInventory(devices: [FleetDeviceEntry(device: claim.device)])
            neighbours = Set(addresses.filter { devices.contains(.address($0)) })
        }
        if let digest = claim.packageSHA256 {
            inventory.devices[0].package = namesByDigest[digest] ?? inventory.devices[0].package
        }
        inventory.devices[0].simulate = nil
        return (inventory, neighbours)
    }

    /// Reads the rollout's inventory and packages from the store. Each package's bytes are
    /// checked against their SHA-256 by the store, then read from those bytes as `fleet` reads a
    /// package file (its own hashes, CRCs and signature, and that bootloaders can verify it). The
    /// inventory's defaults and rules are checked once, with its first entry.
    static func load(_ rollout: String, from store: any RolloutStore) async throws -> RolloutContext {
        let summary = try await store.summary(of: rollout)
        let names = try await store.packages(of: rollout)
        guard !names.isEmpty else { throw NoPackages() }
        var packages: [String: FirmwarePackage] = [:]
        for package in names {
            let bytes = try await store.package(package.sha256, of: rollout)
            let firmware = try FirmwarePackage(bytes: bytes, name: package.name)
            try firmware.contents.checkDevicesCanVerify()
            packages[package.name] = firmware
        }
        let entries = try await entries(of: rollout, from: store)
        return RolloutContext(
            rollout: rollout, entries: entries, packages: packages,
            namesByDigest: Dictionary(
                names.map { ($0.sha256, $0.name) }, uniquingKeysWith: { first, _ in first }),
            concurrency: summary.concurrency)
    }

    /// A rollout that keeps no package: a fleet's record of its run (`fleet --state`), which
    /// no gateway can update a device from.
    struct NoPackages: Error, CustomStringConvertible {
        var description: String {
            "it keeps no package, so none of its devices can be updated (a fleet's --state file "
                + "records a fleet's run; give the gateway the store `rollout create` made)"
        }
    }

    /// Where the rollout's entries come from: the store's, when its first device has one; else
    /// its whole inventory, split; else its devices' names. The inventory's defaults and rules
    /// are checked once, with its first entry.
    private static func entries(of rollout: String, from store: any RolloutStore) async throws -> Entries {
        let first = try await store.devices(of: rollout, from: 0, limit: 1).first?.device
        let stored = try await store.inventoryEntries(of: rollout, named: Set([first].compactMap { $0 }))
        if let stored, let first, let entry = stored.file(of: first) {
            _ = try FleetInventory(data: entry, folder: URL(fileURLWithPath: stored.folder))
            return .stored(StoredEntries(rollout: rollout))
        }
        if stored != nil, let whole = try await store.inventory(of: rollout) {
            let index = try FleetInventoryIndex(data: whole.bytes, folder: URL(fileURLWithPath: whole.folder))
            _ = try index.first()
            return .index(index)
        }
        return .bare(Set(try await store.status(of: rollout).devices.map { DeviceIdentifier($0.device) }))
    }
}
