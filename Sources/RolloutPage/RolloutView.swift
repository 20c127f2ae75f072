import DFURollout

/// One rollout as the page shows it, from the store's listing: counts by standing and by
/// gateway, the failures by error class, and the page of devices one query selects.
struct RolloutView: Sendable {
    struct GatewayRow: Sendable, Equatable {
        var gateway: String
        var counts: [DeviceStanding: Int]
    }

    struct DeviceRow: Sendable, Equatable {
        var status: DeviceStatus
        var standing: DeviceStanding
        var failure: DeviceFailure?
    }

    var rollout: String
    var state: RolloutState
    var total: Int
    var counts: [DeviceStanding: Int]
    var gateways: [GatewayRow]
    /// Failed or aborted devices per error class, most first.
    var errorClasses: [(errorClass: String, count: Int)]
    var query: DeviceQuery
    /// How many devices the query's filters select, over every page.
    var matching: Int
    /// The query's page of them, in inventory order.
    var rows: [DeviceRow]

    init(rollout: String, listing: DeviceListing, query: DeviceQuery) {
        self.rollout = rollout
        state = listing.state
        self.query = query
        var counts: [DeviceStanding: Int] = [:]
        var perGateway: [String: [DeviceStanding: Int]] = [:]
        var perClass: [String: Int] = [:]
        for count in listing.counts {
            counts[count.standing, default: 0] += count.devices
            if let gateway = count.gateway {
                perGateway[gateway, default: [:]][count.standing, default: 0] += count.devices
            }
            if let errorClass = count.errorClass { perClass[errorClass, default: 0] += count.devices }
        }
        self.counts = counts
        total = counts.values.reduce(0, +)
        gateways = perGateway.keys.sorted().map { GatewayRow(gateway: $0, counts: perGateway[$0] ?? [:]) }
        errorClasses = perClass.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { ($0.key, $0.value) }
        matching = listing.matching
        rows = listing.devices.map {
            DeviceRow(status: $0, standing: DeviceStanding($0), failure: DeviceFailure($0))
        }
    }

    /// Devices with their result.
    var done: Int { DeviceStanding.allCases.filter(\.isDone).reduce(0) { $0 + counts[$1, default: 0] } }

    var pages: Int { max(1, (matching + DeviceQuery.pageSize - 1) / DeviceQuery.pageSize) }
}
