/// A rollout without its devices: its settings, state and counts, read from the kept counts
/// (`RolloutTallies`) at a cost that does not grow with the rollout.
public struct RolloutSummary: Sendable, Equatable {
    public var rollout: String
    public var state: RolloutState
    public var canary: Int
    public var maxFailures: Int?
    public var concurrency: Int
    /// How many devices the rollout has.
    public var devices: Int
    /// How many devices ended with each result (a result none ended with is absent).
    public var results: [DeviceResult: Int]

    public init(
        rollout: String, state: RolloutState, canary: Int, maxFailures: Int?, concurrency: Int, devices: Int,
        results: [DeviceResult: Int]
    ) {
        self.rollout = rollout
        self.state = state
        self.canary = canary
        self.maxFailures = maxFailures
        self.concurrency = concurrency
        self.devices = devices
        self.results = results
    }

    /// Devices without a result yet.
    public var pending: Int { devices - results.values.reduce(0, +) }

    /// The rollout as `header` and `tally` give it (both back ends read these two).
    package init(_ rollout: String, header: RolloutHeader, tally: RolloutRules.Tally) {
        self.init(
            rollout: rollout,
            state: RolloutRules.state(
                stored: header.storedState, tally: tally, maxFailures: header.maxFailures),
            canary: header.canary, maxFailures: header.maxFailures, concurrency: header.concurrency,
            devices: tally.left + tally.results.values.reduce(0, +),
            results: tally.results.filter { $0.value > 0 })
    }
}
