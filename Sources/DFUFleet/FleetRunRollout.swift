import DFURollout
import DFUSupport
import Foundation

/// A fleet run's updates as a rollout in an embedded store held in memory: the store decides,
/// as it decides for a gateway, which device may start (the canary's first, none once the
/// rollout halts) and counts the results, so that the fleet keeps no rule and no count of its
/// own (docs/fleet.md, "Updates"). The fleet is the rollout's one gateway.
///
/// A run with neither a canary nor a failure limit leaves the store nothing to decide, and
/// makes none: a gateway's fleet of one (whose device the gateway's own store gave it) would
/// otherwise make a store, schema and all, for every device it updates.
final class FleetRunRollout: Sendable {
    private static let rollout = "fleet"
    private static let gateway = "fleet"
    /// The fleet never renews a claim: the lease only has to outlast any update.
    private static let lease = Duration.seconds(7 * 24 * 3600)

    /// Nil when the run has no rule to apply.
    private let store: EmbeddedRolloutStore?
    private let claims = Locked([String: DeviceClaim]())
    /// The failures counted before the updates (devices not found or not read).
    private let earlierFailures: Int
    /// What is left of the run's `--max-failures` for the updates: the rollout's own limit.
    private let maxFailures: Int?

    /// A rollout of `queue`, the devices to update in order, whose first `canary` are the
    /// canary. `earlierFailures` count towards `maxFailures` as the updates' own do: the store
    /// is given what is left of the limit. Nil when nothing is left: no update may start.
    init?(queue: [String], canary: Int, maxFailures: Int?, earlierFailures: Int) async throws {
        let left = maxFailures.map { $0 - earlierFailures }
        if let left, left <= 0 { return nil }
        self.earlierFailures = earlierFailures
        self.maxFailures = left
        guard canary > 0 || left != nil else {
            store = nil
            return
        }
        let store = try EmbeddedRolloutStore(path: ":memory:")
        try await store.create(
            RolloutSpec(
                name: Self.rollout, packages: [],
                devices: queue.map { RolloutDevice(device: $0, packageSHA256: nil) },
                canary: max(0, canary), maxFailures: left,
                // the packages are the fleet's inventory's choice, made before; the store keeps none
                inventory: RolloutInventory(bytes: Data(), folder: "")))
        self.store = store
    }

    /// Takes `device` for its update; false when the rollout lets it not start (outside the
    /// canary while the canary runs, or the rollout halted).
    func start(_ device: String) async throws -> Bool {
        guard let store else { return true }
        let taken = try await store.claim(
            Self.rollout, for: Self.gateway, among: [device], limit: 1, lease: Self.lease)
        guard let claim = taken.first else { return false }
        claims.withLock { $0[device] = claim }
        return true
    }

    /// Records the result of a device taken by `start`; a device that ended without one
    /// (nil: not started after all) is given back.
    func end(_ device: String, _ result: DeviceResult?) async throws {
        guard let store, let claim = claims.withLock({ $0.removeValue(forKey: device) }) else { return }
        if let result {
            try await store.report(claim, DeviceOutcome(result: result))
        } else {
            try await store.release(claim)
        }
    }

    /// Why the rollout halted, if it did; `withLimit: false` asks for the canary's verdict alone.
    func halt(withLimit: Bool = true) async throws -> RolloutRules.Halt? {
        guard let store else { return nil }
        let tally = try await store.tally(of: Self.rollout)
        return RolloutRules.halt(tally: tally, maxFailures: withLimit ? maxFailures : nil)
    }

    /// Every failure of the run so far: the earlier ones and the updates'.
    func failures() async throws -> Int {
        guard let store else { return earlierFailures }
        return try await earlierFailures + store.tally(of: Self.rollout).failures
    }
}
