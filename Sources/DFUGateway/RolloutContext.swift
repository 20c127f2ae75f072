import DFUFleet
import DFURollout
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

    /// The entry of a device the store names, with the package the store chose for it.
    func entry(for claim: DeviceClaim) -> FleetDeviceEntry? {
        let identifier = DeviceIdentifier(claim.device)
        guard var entry = inventory.devices.first(where: { DeviceIdentifier($0.device) == identifier }) else {
            return nil
        }
        if let digest = claim.packageSHA256 { entry.package = namesByDigest[digest] ?? entry.package }
        entry.simulate = nil
        return entry
    }

    /// The rollout's devices among `seen`, by the names the store knows them by.
    func devices(among seen: Set<DeviceIdentifier>) -> Set<String> {
        Set(inventory.devices.map(\.device).filter { seen.contains(DeviceIdentifier($0)) })
    }

    /// The addresses of the rollout's devices other than `device`.
    func otherAddresses(than device: String) -> Set<String> {
        let identifier = DeviceIdentifier(device)
        return Set(
            inventory.devices.compactMap { entry -> String? in
                let other = DeviceIdentifier(entry.device)
                guard other != identifier, case .address(let address) = other else { return nil }
                return address
            })
    }

    /// Reads the rollout's inventory and packages from the store. Each package's bytes are
    /// checked against their SHA-256 by the store, then read as `fleet` reads a package file
    /// (its own hashes, CRCs and signature) from a copy under `cache`.
    static func load(_ rollout: String, from store: any RolloutStore, cache: URL) async throws
        -> RolloutContext
    {
        let status = try await store.status(of: rollout)
        let names = try await store.packages(of: rollout)
        var packages: [String: FirmwarePackage] = [:]
        for package in names {
            let bytes = try await store.package(package.sha256, of: rollout)
            let folder = cache.appendingPathComponent(package.sha256)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent(URL(fileURLWithPath: package.name).lastPathComponent)
            try bytes.write(to: file, options: .atomic)
            packages[package.name] = try FirmwarePackage(contentsOf: file)
        }
        let inventory: FleetInventory
        if let stored = try await store.inventory(of: rollout) {
            inventory = try FleetInventory(data: stored.bytes, folder: URL(fileURLWithPath: stored.folder))
        } else {
            inventory = try FleetInventory(
                devices: status.devices.map { FleetDeviceEntry(device: $0.device) })
        }
        return RolloutContext(
            rollout: rollout, inventory: inventory, packages: packages,
            namesByDigest: Dictionary(
                names.map { ($0.sha256, $0.name) }, uniquingKeysWith: { first, _ in first }),
            concurrency: status.concurrency)
    }
}
