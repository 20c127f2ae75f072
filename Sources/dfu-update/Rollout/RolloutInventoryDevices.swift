import DFUFleet
import DFURollout
import Foundation

/// A rollout's devices as its inventory gives them, for `rollout create` and `rollout retry`.
enum RolloutInventoryDevices {
    /// Each device of `inventory` that `keeping` accepts, in inventory order: its own package,
    /// or the default when no rule could choose another (by digest, from `digests` by package
    /// path), and its entry alone (`index`), which a gateway reads instead of the whole
    /// inventory. An address is stored as BlueZ prints it (upper case), which is how gateways
    /// ask for the devices they see. `path` names the inventory in a refusal.
    static func devices(
        of inventory: FleetInventory, index: FleetInventoryIndex, digests: [String: String], path: String,
        keeping: (String) -> Bool = { _ in true }
    ) throws -> [RolloutDevice] {
        var devices: [RolloutDevice] = []
        for (number, entry) in inventory.devices.enumerated() where keeping(entry.identifier.description) {
            let package = entry.package ?? (inventory.rules.isEmpty ? inventory.defaults.package : nil)
            // without rules nothing could give it one later: every gateway would fail it
            if package == nil, inventory.rules.isEmpty {
                throw CommandFailure(
                    usage:
                        "\(path): device \(number + 1) (\(entry.device)) has no package, and the inventory has "
                        + "no rules and no default package; give the entry a \"package\" or the inventory "
                        + "\"defaults\": {\"package\": …} (docs/fleet.md, \"Rules\")")
            }
            let digest = package.flatMap { digests[$0] }
            if let package, digest == nil {
                throw CommandFailure(
                    usage: "\(path): device \(number + 1) (\(entry.device)) names the package \(package), "
                        + "which the rollout does not keep")
            }
            devices.append(
                RolloutDevice(
                    device: entry.identifier.description, packageSHA256: digest,
                    inventoryEntry: index.entry(of: entry.identifier)))
        }
        return devices
    }
}
