import DFURollout
import DFUSupport
import Foundation

/// A gateway's store that can be cut off, as by a network cut: after `cut()` every call fails
/// as a store that cannot be reached (or, given another failure, refuses as that). Remembers the end of the last lease the store granted, and
/// counts the claims, whole statuses and inventories, announcements and rollout lists asked for, and the devices
/// with a result that claims named. Can hold a report until claims come (`holdNextReport`).
final class CutStore: RolloutStore {
    private let store: EmbeddedRolloutStore
    private let state = Locked(
        (
            cut: StoreFailure?.none, lastLeaseEnd: Date?.none, claimCalls: 0, statusCalls: 0,
            announceCalls: 0,
            rolloutsCalls: 0, reported: Set<String>(), namedReported: 0,
            calls: 0, inventoryCalls: 0, entriesCalls: 0, holdUntilClaims: Int?.none,
            claimsReachedWhileHeld: false
        ))

    init(_ store: EmbeddedRolloutStore) { self.store = store }

    func cut(as failure: StoreFailure = StoreFailure(.unreachable, "the connection to the store was cut")) {
        state.withLock { $0.cut = failure }
    }

    /// Calls of every kind so far, answered or not.
    var calls: Int { state.withLock { $0.calls } }

    /// Claims asked for so far, answered or not.
    var claimCalls: Int { state.withLock { $0.claimCalls } }

    /// Whole statuses (every device) asked for so far.
    var statusCalls: Int { state.withLock { $0.statusCalls } }

    /// Announcements (`announce`) asked for so far.
    var announceCalls: Int { state.withLock { $0.announceCalls } }

    /// Devices that claims named after the store had recorded their result.
    var namedReported: Int { state.withLock { $0.namedReported } }

    /// Whole inventories (`inventory(of:)`) asked for so far.
    var inventoryCalls: Int { state.withLock { $0.inventoryCalls } }

    /// Reads of inventory entries (`inventoryEntries`) asked for so far.
    var entriesCalls: Int { state.withLock { $0.entriesCalls } }

    /// Lists of the rollouts (`rollouts`) asked for so far.
    var rolloutsCalls: Int { state.withLock { $0.rolloutsCalls } }

    /// Holds the next report, before it is recorded, until the store was asked for `claims`
    /// claims in all, or for 2 s at most (a gateway that claims only after the report waits it
    /// out).
    func holdNextReport(untilClaims claims: Int) { state.withLock { $0.holdUntilClaims = claims } }

    /// Whether the claims the held report waited for were asked for before it was recorded.
    var claimsReachedWhileHeld: Bool { state.withLock { $0.claimsReachedWhileHeld } }

    /// In the store's clock.
    var lastLeaseEnd: Date? { state.withLock { $0.lastLeaseEnd } }

    private func reach() throws {
        let cut = state.withLock { state in
            state.calls += 1
            return state.cut
        }
        if let cut { throw RolloutStoreError.storage(cut) }
    }

    func create(_ spec: RolloutSpec) async throws {
        try reach()
        try await store.create(spec)
    }

    func listing(of rollout: String, _ query: DeviceListingQuery) async throws -> DeviceListing {
        try reach()
        return try await store.listing(of: rollout, query)
    }

    func apply(_ command: RolloutCommand, to rollout: String) async throws -> RolloutState {
        try reach()
        return try await store.apply(command, to: rollout)
    }

    func rollouts() async throws -> [String] {
        try reach()
        state.withLock { $0.rolloutsCalls += 1 }
        return try await store.rollouts()
    }

    func status(of rollout: String) async throws -> RolloutStatus {
        state.withLock { $0.statusCalls += 1 }
        try reach()
        return try await store.status(of: rollout)
    }

    func summary(of rollout: String) async throws -> RolloutSummary {
        try reach()
        return try await store.summary(of: rollout)
    }

    func devices(of rollout: String, named names: Set<String>) async throws -> [DeviceStatus] {
        try reach()
        return try await store.devices(of: rollout, named: names)
    }

    func devices(of rollout: String, from position: Int, limit: Int) async throws -> [DeviceStatus] {
        try reach()
        return try await store.devices(of: rollout, from: position, limit: limit)
    }

    func gateways(of rollout: String) async throws -> [GatewayStatus] {
        try reach()
        return try await store.gateways(of: rollout)
    }

    func claim(
        _ rollout: String, for gateway: String, among visible: Set<String>?, limit: Int, lease: Duration
    )
        async throws -> [DeviceClaim]
    {
        state.withLock { state in
            state.claimCalls += 1
            state.namedReported += visible?.intersection(state.reported).count ?? 0
        }
        try reach()
        let claims = try await store.claim(rollout, for: gateway, among: visible, limit: limit, lease: lease)
        if let end = claims.map(\.expiresAt).max() { state.withLock { $0.lastLeaseEnd = end } }
        return claims
    }

    func renew(_ claim: DeviceClaim, lease: Duration) async throws -> LeaseRenewal {
        try reach()
        let renewal = try await store.renew(claim, lease: lease)
        state.withLock { $0.lastLeaseEnd = renewal.expiresAt }
        return renewal
    }

    func report(_ claim: DeviceClaim, _ outcome: DeviceOutcome) async throws -> RolloutState {
        try reach()
        let awaited: Int? = state.withLock { state in
            defer { state.holdUntilClaims = nil }
            return state.holdUntilClaims
        }
        if let awaited {
            let end = ContinuousClock.now + .seconds(2)
            while claimCalls < awaited, ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(5))
            }
            state.withLock { $0.claimsReachedWhileHeld = $0.claimCalls >= awaited }
        }
        let state = try await store.report(claim, outcome)
        self.state.withLock { _ = $0.reported.insert(claim.device) }
        return state
    }

    func release(_ claim: DeviceClaim) async throws {
        try reach()
        try await store.release(claim)
    }

    func announce(_ gateway: String, instance: String, presence: Duration) async throws -> Date {
        try reach()
        state.withLock { $0.announceCalls += 1 }
        return try await store.announce(gateway, instance: instance, presence: presence)
    }

    func withdraw(_ gateway: String, instance: String) async throws {
        try reach()
        try await store.withdraw(gateway, instance: instance)
    }

    func inventory(of rollout: String) async throws -> RolloutInventory? {
        state.withLock { $0.inventoryCalls += 1 }
        try reach()
        return try await store.inventory(of: rollout)
    }

    func inventoryEntries(of rollout: String, named names: Set<String>) async throws
        -> RolloutInventoryEntries?
    {
        state.withLock { $0.entriesCalls += 1 }
        try reach()
        return try await store.inventoryEntries(of: rollout, named: names)
    }

    func packages(of rollout: String) async throws -> [PackageName] {
        try reach()
        return try await store.packages(of: rollout)
    }

    func package(_ sha256: String, of rollout: String) async throws -> Data {
        try reach()
        return try await store.package(sha256, of: rollout)
    }

    func close() async throws { await store.close() }
}
