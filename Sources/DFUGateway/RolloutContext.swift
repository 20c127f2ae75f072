import DFUFleet
import DFURollout
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU

/// What a gateway needs of one rollout to update its devices: the inventory (rules and
/// defaults as `fleet` reads them), every package read and checked, and the rollout's limit of
/// devices per gateway. Loaded once per rollout from the store.
struct RolloutContext: Sendable {
    let rollout: String
    let inventory: FleetInventory
    /// By name: the path the inventory resolves it to.
    let packages: [String: FirmwarePackage]
    let namesByDigest: [String: String]
    let concurrency: Int
    /// Each device's entry by its identifier, and every address of the rollout: read once, as a
    /// gateway looks them up for every claim.
    private let entries: [DeviceIdentifier: FleetDeviceEntry]
    private let addresses: Set<BluetoothAddress>

    init(
        rollout: String, inventory: FleetInventory, packages: [String: FirmwarePackage],
        namesByDigest: [String: String], concurrency: Int
    ) {
        self.rollout = rollout
        self.inventory = inventory
        self.packages = packages
        self.namesByDigest = namesByDigest
        self.concurrency = concurrency
        entries = Dictionary(
            inventory.devices.map { ($0.identifier, $0) },
            uniquingKeysWith: { first, _ in first })
        addresses = Set(
            entries.keys.compactMap { identifier in
                if case .address(let address) = identifier { address } else { nil }
            })
    }

    /// The entry of the claimed `device`, with the package the store chose for it.
    func entry(for claim: DeviceClaim, device: DeviceIdentifier) -> FleetDeviceEntry? {
        guard var entry = entries[device] else { return nil }
        if let digest = claim.packageSHA256 { entry.package = namesByDigest[digest] ?? entry.package }
        entry.simulate = nil
        return entry
    }

    /// The rollout's other devices that could be taken for this one's bootloader, or it for
    /// theirs: those at the addresses next to its own (protocol doc §0.4).
    func neighbours(of device: DeviceIdentifier) -> Set<BluetoothAddress> {
        guard case .address(let address) = device else { return [] }
        return Set([address.incremented, address.decremented].filter(addresses.contains))
    }

    /// Reads the rollout's inventory and packages from the store. Each package's bytes are
    /// checked against their SHA-256 by the store, then read as `fleet` reads a package file
    /// (its own hashes, CRCs and signature, and that bootloaders can verify it) from a copy under
    /// `cache`.
    static func load(_ rollout: String, from store: any RolloutStore, cache: URL) async throws
        -> RolloutContext
    {
        let summary = try await store.summary(of: rollout)
        let names = try await store.packages(of: rollout)
        var packages: [String: FirmwarePackage] = [:]
        for package in names {
            let bytes = try await store.package(package.sha256, of: rollout)
            let folder = cache.appendingPathComponent(package.sha256)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent(URL(fileURLWithPath: package.name).lastPathComponent)
            try bytes.write(to: file, options: .atomic)
            let firmware = try FirmwarePackage(contentsOf: file)
            try firmware.contents.checkDevicesCanVerify()
            packages[package.name] = firmware
        }
        let inventory: FleetInventory
        if let stored = try await store.inventory(of: rollout) {
            inventory = try FleetInventory(data: stored.bytes, folder: URL(fileURLWithPath: stored.folder))
        } else {
            // a rollout made without an inventory (by the library): its devices are the entries
            inventory = try FleetInventory(
                devices: try await store.status(of: rollout).devices.map {
                    FleetDeviceEntry(device: $0.device)
                })
        }
        return RolloutContext(
            rollout: rollout, inventory: inventory, packages: packages,
            namesByDigest: Dictionary(
                names.map { ($0.sha256, $0.name) }, uniquingKeysWith: { first, _ in first }),
            concurrency: summary.concurrency)
    }
}
