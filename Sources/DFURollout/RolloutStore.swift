import Foundation

/// Where one rollout, shared by any number of gateways, lives: its packages and devices, each
/// device's claim, attempts and result, and the gateways (docs/rollout.md). Two back ends:
/// `EmbeddedRolloutStore` (one SQLite file, one gateway) and `PostgresRolloutStore` (module
/// DFURolloutPostgres, many gateways).
///
/// The operator's part is `create`, `apply` and the read-only calls; the gateway's is `claim`,
/// `renew`, `report`, `release` and `package`. On PostgreSQL each part is a database role.
public protocol RolloutStore: Sendable {
    /// Stores a new rollout, `active`. Fails if the name is taken, a device is named twice or
    /// names a package the spec lacks, or a package's bytes do not hash to its digest.
    func create(_ spec: RolloutSpec) async throws

    /// Pauses, resumes or cancels a rollout; returns its new state.
    @discardableResult
    func apply(_ command: RolloutCommand, to rollout: String) async throws -> RolloutState

    /// The names of every rollout, oldest first.
    func rollouts() async throws -> [String]

    /// The rollout with every device (`rollout status`); its cost grows with the rollout.
    func status(of rollout: String) async throws -> RolloutStatus

    /// The rollout's settings, state and counts without its devices, at the same cost at any size.
    func summary(of rollout: String) async throws -> RolloutSummary

    /// Up to `limit` of the rollout's devices in inventory order, from the one at `position`
    /// (0: the first; a rollout's positions run from 0 without a gap): one page, read through
    /// the devices' position index.
    func devices(of rollout: String, from position: Int, limit: Int) async throws -> [DeviceStatus]

    /// The gateways that claimed devices of the rollout, by name, with when each was last heard from.
    func gateways(of rollout: String) async throws -> [GatewayStatus]

    /// The rollout's devices named in `names`, in inventory order (names it lacks are left
    /// out): each one looked up by its key, so the cost follows `names`, not the rollout.
    func devices(of rollout: String, named names: Set<String>) async throws -> [DeviceStatus]

    /// The rollout counted by standing, gateway and error class, and the page of its devices
    /// `query` selects (`rollout serve`): no more rows than the page leave the store.
    func listing(of rollout: String, _ query: DeviceListingQuery) async throws -> DeviceListing

    /// Claims up to `limit` devices of `rollout` for `gateway`, for `lease`: devices without a
    /// result whose lease is free or expired, among `visible` (the devices the gateway can
    /// reach; nil: any), in inventory order, within the canary. None unless the rollout is
    /// `active`. Two gateways never hold one device: the claims are taken in one transaction.
    func claim(
        _ rollout: String, for gateway: String, among visible: Set<String>?, limit: Int, lease: Duration
    ) async throws -> [DeviceClaim]

    /// Extends a claim's lease to `lease` from now. Throws `leaseLost` if the token is stale.
    func renew(_ claim: DeviceClaim, lease: Duration) async throws -> LeaseRenewal

    /// Records the device's result and frees it; halts the rollout when a canary device failed
    /// or the failures reached `maxFailures`. Throws `leaseLost` if the token is stale (then
    /// nothing is recorded). Returns the rollout's state after it.
    @discardableResult
    func report(_ claim: DeviceClaim, _ outcome: DeviceOutcome) async throws -> RolloutState

    /// Gives the device back without a result (the gateway stops): another gateway may claim it
    /// at once. Throws `leaseLost` if the token is stale.
    func release(_ claim: DeviceClaim) async throws

    /// Says that the gateway named `gateway` runs, as the process `instance`, for `presence`
    /// from now (in the store's clock; the gateway says so again well before). Throws
    /// `gatewayNameInUse` while another instance's presence under that name runs: two gateways
    /// with one name would merge in every status. Returns the end of the presence.
    @discardableResult
    func announce(_ gateway: String, instance: String, presence: Duration) async throws -> Date

    /// Ends the presence of `instance` (the gateway stops), so that its name is free at once.
    func withdraw(_ gateway: String, instance: String) async throws

    /// The inventory the rollout was made from, if any: the whole file, whose cost grows with
    /// the rollout (a gateway reads `inventoryEntries` instead, when the rollout has them).
    func inventory(of rollout: String) async throws -> RolloutInventory?

    /// The inventory entries (`RolloutDevice.inventoryEntry`) of the rollout's devices named in
    /// `names`, each looked up by its key: the cost follows `names`, not the rollout. Names the
    /// rollout lacks are left out, and so are devices stored without an entry (by a version that
    /// kept the whole inventory only). nil for a rollout made without an inventory.
    func inventoryEntries(of rollout: String, named names: Set<String>) async throws
        -> RolloutInventoryEntries?

    /// The rollout's packages: each one's name (its path as the inventory resolves it) and
    /// SHA-256, for a gateway to find the package a rule chose.
    func packages(of rollout: String) async throws -> [PackageName]

    /// A package's bytes, checked against its digest.
    func package(_ sha256: String, of rollout: String) async throws -> Data

    /// Ends the store's connections; the store is unusable afterwards.
    func close() async throws
}
