import DFUFleet
import DFURollout
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU

/// What a gateway needs of one rollout to update its devices: the inventory (rules and
/// defaults as `fleet` reads them, each device's entry read when the device is claimed), every
/// package read and checked, and the rollout's limit of devices per gateway. Loaded once per
/// rollout from the store; for a rollout with an inventory (as `rollout create` makes it), at a
/// cost that hardly grows with the rollout (issue 39).
struct RolloutContext: Sendable {
    let rollout: String
    /// The rollout's inventory split into entries; nil for a rollout made without one (by the
    /// library), whose devices' entries are their names alone.
    let index: FleetInventoryIndex?
    /// The devices of a rollout made without an inventory, read whole when it is loaded (the
    /// library's rollouts, not `rollout create`'s); empty for one with an inventory.
    let bareDevices: Set<DeviceIdentifier>
    /// By name: the path the inventory resolves it to.
    let packages: [String: FirmwarePackage]
    let namesByDigest: [String: String]
    let concurrency: Int

    /// The inventory of the device a claim names, with the package the store chose for it; nil
    /// when the rollout's inventory does not list it.
    func inventory(for claim: DeviceClaim, device: DeviceIdentifier) throws -> FleetInventory? {
        var inventory: FleetInventory
        if let index {
            guard let listed = try index.inventory(of: device) else { return nil }
            inventory = listed
        } else {
            guard bareDevices.contains(device) else { return nil }
            inventory = try FleetInventory(devices: [FleetDeviceEntry(device: claim.device)])
        }
        if let digest = claim.packageSHA256 {
            inventory.devices[0].package = namesByDigest[digest] ?? inventory.devices[0].package
        }
        inventory.devices[0].simulate = nil
        return inventory
    }

    /// The rollout's other devices that could be taken for this one's bootloader, or it for
    /// theirs: those at the addresses next to its own (protocol doc §0.4).
    func neighbours(of device: DeviceIdentifier) -> Set<BluetoothAddress> {
        guard case .address(let address) = device else { return [] }
        return Set(
            [address.incremented, address.decremented].filter {
                index?.lists(.address($0)) ?? bareDevices.contains(.address($0))
            })
    }

    /// Reads the rollout's inventory and packages from the store. Each package's bytes are
    /// checked against their SHA-256 by the store, then read from those bytes as `fleet` reads a
    /// package file (its own hashes, CRCs and signature, and that bootloaders can verify it). The
    /// inventory's defaults and rules are checked once, with its first entry.
    static func load(_ rollout: String, from store: any RolloutStore) async throws -> RolloutContext {
        let summary = try await store.summary(of: rollout)
        let names = try await store.packages(of: rollout)
        var packages: [String: FirmwarePackage] = [:]
        for package in names {
            let bytes = try await store.package(package.sha256, of: rollout)
            let firmware = try FirmwarePackage(bytes: bytes, name: package.name)
            try firmware.contents.checkDevicesCanVerify()
            packages[package.name] = firmware
        }
        var index: FleetInventoryIndex?
        var bareDevices: Set<DeviceIdentifier> = []
        if let stored = try await store.inventory(of: rollout) {
            index = try FleetInventoryIndex(data: stored.bytes, folder: URL(fileURLWithPath: stored.folder))
            _ = try index?.first()
        } else {
            bareDevices = Set(try await store.status(of: rollout).devices.map { DeviceIdentifier($0.device) })
        }
        return RolloutContext(
            rollout: rollout, index: index, bareDevices: bareDevices, packages: packages,
            namesByDigest: Dictionary(
                names.map { ($0.sha256, $0.name) }, uniquingKeysWith: { first, _ in first }),
            concurrency: summary.concurrency)
    }
}
