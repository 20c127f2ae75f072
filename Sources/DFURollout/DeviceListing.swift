/// Where one device of a rollout stands, for people: its result, else whether a gateway holds
/// it now (`in_progress`) or it waits (`pending`).
public enum DeviceStanding: String, Sendable, CaseIterable {
    case completed, skipped, failed, aborted
    case inProgress = "in_progress"
    case pending

    /// Whether the device has its result.
    public var isDone: Bool { self != .inProgress && self != .pending }
}

/// Which devices of a rollout `RolloutStore.listing` returns: those matching every filter given,
/// `limit` of them from `offset`, in inventory order.
public struct DeviceListingQuery: Sendable, Equatable {
    public var standing: DeviceStanding?
    /// The gateway that holds the device or held it last.
    public var gateway: String?
    /// A failed or aborted device's error class: the `name` of its fleet report's `error`, or
    /// `unknown` when the report names none.
    public var errorClass: String?
    public var offset: Int
    public var limit: Int

    public init(
        standing: DeviceStanding? = nil, gateway: String? = nil, errorClass: String? = nil, offset: Int = 0,
        limit: Int = 100
    ) {
        self.standing = standing
        self.gateway = gateway
        self.errorClass = errorClass
        self.offset = offset
        self.limit = limit
    }
}

/// A rollout counted by standing, gateway and error class, and one page of its devices: what a
/// page of `rollout serve` shows, read without returning every device.
public struct DeviceListing: Sendable, Equatable {
    /// How many devices share a gateway (nil: never claimed), a standing and an error class.
    public struct Count: Sendable, Equatable {
        public var gateway: String?
        public var standing: DeviceStanding
        public var errorClass: String?
        public var devices: Int

        public init(gateway: String?, standing: DeviceStanding, errorClass: String?, devices: Int) {
            self.gateway = gateway
            self.standing = standing
            self.errorClass = errorClass
            self.devices = devices
        }
    }

    public var state: RolloutState
    /// Every device of the rollout, counted (in no particular order).
    public var counts: [Count]
    /// How many devices match the query's filters, over every page.
    public var matching: Int
    /// The query's page of them.
    public var devices: [DeviceStatus]

    public init(state: RolloutState, counts: [Count], matching: Int, devices: [DeviceStatus]) {
        self.state = state
        self.counts = counts
        self.matching = matching
        self.devices = devices
    }
}

/// The SQL both back ends share for a listing: the expressions a device is grouped and filtered by.
package enum DeviceListingSQL {
    package static let standing =
        "coalesce(result, CASE WHEN lease_gateway IS NOT NULL THEN 'in_progress' ELSE 'pending' END)"
    package static let gateway = "coalesce(lease_gateway, last_gateway)"
    /// The devices in inventory order, for pages read by position (`RolloutStore.devices(of:from:limit:)`).
    package static let positionIndex =
        "CREATE INDEX IF NOT EXISTS devices_in_order ON devices (rollout_id, position)"
    package static let columns =
        "device, result, coalesce(lease_gateway, last_gateway), attempts, error, report, lease_gateway IS NOT NULL"
}
