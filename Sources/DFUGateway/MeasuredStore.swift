import DFURollout
import Foundation
import Metrics

/// A gateway's store with its calls measured (docs/metrics.md): each call's latency, whether the
/// store answers, and the lease renewals it granted.
struct MeasuredStore: RolloutStore {
    let base: any RolloutStore
    let factory: any MetricsFactory
    private let reachable: Gauge
    private let renewals: Counter

    init(_ base: any RolloutStore, factory: any MetricsFactory) {
        self.base = base
        self.factory = factory
        reachable = Gauge(label: "dfu_store_reachable", factory: factory)
        renewals = Counter(label: "dfu_gateway_lease_renewals_total", factory: factory)
    }

    /// Times one call; an answer, even a refusal, says the store is reachable, an outage that it
    /// is not.
    private func measure<T>(_ call: String, _ body: () async throws -> T) async throws -> T {
        let timer = Metrics.Timer(
            label: "dfu_store_call_duration_seconds", dimensions: [("call", call)], factory: factory)
        let start = ContinuousClock.now
        defer { timer.record(duration: ContinuousClock.now - start) }
        do {
            let answer = try await body()
            reachable.record(1)
            return answer
        } catch RolloutStoreError.storage(let failure) where failure.isOutage {
            reachable.record(0)
            throw RolloutStoreError.storage(failure)
        } catch {
            reachable.record(1)
            throw error
        }
    }

    func create(_ spec: RolloutSpec) async throws {
        try await measure("create") { try await base.create(spec) }
    }

    func apply(_ command: RolloutCommand, to rollout: String) async throws -> RolloutState {
        try await measure("apply") { try await base.apply(command, to: rollout) }
    }

    func rollouts() async throws -> [String] {
        try await measure("rollouts") { try await base.rollouts() }
    }

    func status(of rollout: String) async throws -> RolloutStatus {
        try await measure("status") { try await base.status(of: rollout) }
    }

    func summary(of rollout: String) async throws -> RolloutSummary {
        try await measure("summary") { try await base.summary(of: rollout) }
    }

    func devices(of rollout: String, named names: Set<String>) async throws -> [DeviceStatus] {
        try await measure("devices") { try await base.devices(of: rollout, named: names) }
    }

    func devices(of rollout: String, from position: Int, limit: Int) async throws -> [DeviceStatus] {
        try await measure("page") { try await base.devices(of: rollout, from: position, limit: limit) }
    }

    func gateways(of rollout: String) async throws -> [GatewayStatus] {
        try await measure("gateways") { try await base.gateways(of: rollout) }
    }

    func listing(of rollout: String, _ query: DeviceListingQuery) async throws -> DeviceListing {
        try await measure("listing") { try await base.listing(of: rollout, query) }
    }

    func claim(
        _ rollout: String, for gateway: String, among visible: Set<String>?, limit: Int, lease: Duration
    ) async throws -> [DeviceClaim] {
        try await measure("claim") {
            try await base.claim(rollout, for: gateway, among: visible, limit: limit, lease: lease)
        }
    }

    func renew(_ claim: DeviceClaim, lease: Duration) async throws -> LeaseRenewal {
        let renewal = try await measure("renew") { try await base.renew(claim, lease: lease) }
        renewals.increment()
        return renewal
    }

    func report(_ claim: DeviceClaim, _ outcome: DeviceOutcome) async throws -> RolloutState {
        try await measure("report") { try await base.report(claim, outcome) }
    }

    func release(_ claim: DeviceClaim) async throws {
        try await measure("release") { try await base.release(claim) }
    }

    func announce(_ gateway: String, instance: String, presence: Duration) async throws -> Date {
        try await measure("announce") {
            try await base.announce(gateway, instance: instance, presence: presence)
        }
    }

    func withdraw(_ gateway: String, instance: String) async throws {
        try await measure("withdraw") { try await base.withdraw(gateway, instance: instance) }
    }

    func inventory(of rollout: String) async throws -> RolloutInventory? {
        try await measure("inventory") { try await base.inventory(of: rollout) }
    }

    func inventoryEntries(of rollout: String, named names: Set<String>) async throws
        -> RolloutInventoryEntries?
    {
        try await measure("inventory_entries") { try await base.inventoryEntries(of: rollout, named: names) }
    }

    func packages(of rollout: String) async throws -> [PackageName] {
        try await measure("packages") { try await base.packages(of: rollout) }
    }

    func package(_ sha256: String, of rollout: String) async throws -> Data {
        try await measure("package") { try await base.package(sha256, of: rollout) }
    }

    func close() async throws { try await base.close() }
}
