import DFURollout

/// One rollout as the page shows it, worked out from the store's `status`: counts by state and by
/// gateway, the failures by error class, and the devices one query selects.
struct RolloutView: Sendable {
    struct GatewayRow: Sendable, Equatable {
        var gateway: String
        var counts: [DeviceState: Int]
    }

    struct DeviceRow: Sendable, Equatable {
        var status: DeviceStatus
        var state: DeviceState
        var failure: DeviceFailure?
    }

    var rollout: String
    var state: RolloutState
    var total: Int
    var counts: [DeviceState: Int]
    var gateways: [GatewayRow]
    /// Failed or aborted devices per error class, most first.
    var errorClasses: [(errorClass: String, count: Int)]
    var query: DeviceQuery
    /// How many devices the query's filters select, over every page.
    var matching: Int
    /// The query's page of them, in inventory order.
    var rows: [DeviceRow]

    init(_ status: RolloutStatus, query: DeviceQuery) {
        rollout = status.rollout
        state = status.state
        total = status.devices.count
        self.query = query
        var counts: [DeviceState: Int] = [:]
        var perGateway: [String: [DeviceState: Int]] = [:]
        var perClass: [String: Int] = [:]
        var matching = 0
        var rows: [DeviceRow] = []
        let first = (query.page - 1) * DeviceQuery.pageSize
        for device in status.devices {
            let state = DeviceState(device)
            counts[state, default: 0] += 1
            if let gateway = device.gateway { perGateway[gateway, default: [:]][state, default: 0] += 1 }
            let failure = DeviceFailure(device)
            if let failure { perClass[failure.errorClass, default: 0] += 1 }
            guard query.state.map({ $0 == state }) ?? true,
                query.gateway.map({ $0 == device.gateway }) ?? true,
                query.errorClass.map({ $0 == failure?.errorClass }) ?? true
            else { continue }
            if matching >= first, rows.count < DeviceQuery.pageSize {
                rows.append(DeviceRow(status: device, state: state, failure: failure))
            }
            matching += 1
        }
        self.counts = counts
        gateways = perGateway.keys.sorted().map { GatewayRow(gateway: $0, counts: perGateway[$0] ?? [:]) }
        errorClasses = perClass.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { ($0.key, $0.value) }
        self.matching = matching
        self.rows = rows
    }

    /// Devices with their result.
    var done: Int { DeviceState.allCases.filter(\.isDone).reduce(0) { $0 + counts[$1, default: 0] } }

    var pages: Int { max(1, (matching + DeviceQuery.pageSize - 1) / DeviceQuery.pageSize) }
}
