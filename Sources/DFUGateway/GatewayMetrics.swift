import DFUFleet
import Metrics

/// A gateway's series from its events (docs/metrics.md); the updates' own through
/// `FleetMetrics`, the store's through `MeasuredStore`.
final class GatewayMetrics: Sendable {
    private let fleet: FleetMetrics
    private let claims: Counter
    private let leaseLosses: Counter
    private let releases: Counter
    private let devicesInReach: Gauge

    init(factory: any MetricsFactory) {
        fleet = FleetMetrics(factory: factory)
        claims = Counter(label: "dfu_gateway_claims_total", factory: factory)
        leaseLosses = Counter(label: "dfu_gateway_lease_losses_total", factory: factory)
        releases = Counter(label: "dfu_gateway_releases_total", factory: factory)
        devicesInReach = Gauge(label: "dfu_gateway_devices_in_reach", factory: factory)
    }

    func observe(_ event: GatewayEvent) {
        switch event {
        case .claimed: claims.increment()
        case .fleet(_, let event): fleet.observe(event)
        case .released: releases.increment()
        case .leaseLost: leaseLosses.increment()
        case .reported, .storeUnavailable, .storeAvailable, .rolloutUnusable, .waiting, .nameInUse, .idle:
            break
        }
    }

    /// The devices the last look for work saw.
    func sawDevices(_ count: Int) { devicesInReach.record(count) }
}
