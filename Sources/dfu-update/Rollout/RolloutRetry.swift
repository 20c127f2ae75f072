import DFUFleet
import DFURollout
import DFUSupport
import Foundation

/// What `rollout retry` reads of a rollout: the devices it left, its settings, packages and
/// inventory; and the new rollout made of them.
struct RolloutRetry {
    let summary: RolloutSummary
    /// The devices without a completed or skipped result, by name.
    let left: Set<String>
    /// How many of `left` failed or were aborted (the rest never started).
    let failed: Int
    let packages: [RolloutPackage]
    let inventory: RolloutInventory

    /// Devices read from the store in one page.
    private static let page = 1000

    /// Reads `name`, or throws a usage error saying why it cannot be retried now.
    static func read(_ name: String, from store: any RolloutStore) async throws -> RolloutRetry {
        let summary = try await store.summary(of: name)
        guard !Self.takesClaimsNowOrLater(summary.state) else {
            throw CommandFailure(
                usage:
                    "rollout \(name) is \(summary.state.rawValue): its gateways may still update its devices; "
                    + "`rollout cancel \(name)` first, or wait until it completes")
        }
        var left: Set<String> = []
        var failed = 0
        var held: [String] = []
        var position = 0
        while position < summary.devices {
            let devices = try await store.devices(of: name, from: position, limit: page)
            if devices.isEmpty { break }
            position += devices.count
            for device in devices where !(device.result?.passesCanary ?? false) {
                left.insert(device.device)
                if device.result != nil { failed += 1 }
                if device.held { held.append(device.device) }
            }
        }
        if let first = held.first {
            throw CommandFailure(
                usage: "a gateway still holds \(Plural.count(held.count, "device")) of rollout \(name) "
                    + "(\(first)\(held.count > 1 ? ", …" : "")); retry once its updates end (`rollout status \(name)`)"
            )
        }
        guard !left.isEmpty else {
            throw CommandFailure(
                usage: "every device of rollout \(name) was updated or up to date; there is nothing to retry")
        }
        try await refuseOverlap(of: left, with: name, in: store)
        guard let inventory = try await store.inventory(of: name) else {
            throw CommandFailure(
                usage: "rollout \(name) was made without an inventory; `rollout create` makes a new rollout")
        }
        var packages: [RolloutPackage] = []
        for package in try await store.packages(of: name) {
            let bytes = try await store.package(package.sha256, of: name)
            packages.append(RolloutPackage(sha256: package.sha256, name: package.name, bytes: bytes))
        }
        return RolloutRetry(
            summary: summary, left: left, failed: failed, packages: packages, inventory: inventory)
    }

    /// Whether gateways claim the rollout's devices, or will once it is resumed.
    private static func takesClaimsNowOrLater(_ state: RolloutState) -> Bool {
        state.takesClaims || state == .paused
    }

    /// Throws when another rollout may update one of `left`: one that takes claims, or will
    /// again (active or paused), has it without a result, or a gateway holds it for any other
    /// rollout (a halted one's updates in progress go on). Two rollouts would update it at once.
    private static func refuseOverlap(
        of left: Set<String>, with name: String, in store: any RolloutStore
    ) async throws {
        for other in try await store.rollouts() where other != name {
            let state = try await store.summary(of: other).state
            let claims = takesClaimsNowOrLater(state)
            let open = try await store.devices(of: other, named: left).filter {
                $0.held || (claims && $0.result == nil)
            }
            if let first = open.first {
                throw CommandFailure(
                    usage:
                        "rollout \(other) (\(state.rawValue)) has \(first.device)\(open.count > 1 ? " and others" : "") "
                        + "of rollout \(name) still to update; "
                        + (claims
                            ? "retry once it ends, or `rollout cancel \(other)`"
                            : "retry once its updates end (`rollout status \(other)`)")
                )
            }
        }
    }

    /// The new rollout: the devices left, read from the rollout's inventory as `rollout create`
    /// reads them, with its packages and settings.
    func spec(named name: String) throws -> RolloutSpec {
        let folder = URL(fileURLWithPath: inventory.folder)
        let (parsed, index) = try FleetSetup.usage {
            (
                try FleetInventory(data: inventory.bytes, folder: folder),
                try FleetInventoryIndex(data: inventory.bytes, folder: folder)
            )
        }
        let devices = try RolloutInventoryDevices.devices(
            of: parsed, index: index,
            digests: Dictionary(
                packages.map { ($0.name, $0.sha256) }, uniquingKeysWith: { first, _ in first }),
            path: "the inventory of rollout \(summary.rollout)", keeping: left.contains)
        return RolloutSpec(
            name: name, packages: packages, devices: devices, canary: summary.canary,
            maxFailures: summary.maxFailures, concurrency: summary.concurrency,
            inventory: RolloutInventory(
                bytes: inventory.bytes, folder: inventory.folder, entryFrame: index.frame))
    }
}
