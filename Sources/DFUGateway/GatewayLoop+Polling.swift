import DFURollout

/// What the loop asks the store once per poll interval at most, not at every wake: a device's
/// end wakes it, and asking then would cost the store a transaction or two per device ended,
/// between one device's report and the next one's claim (issue 39).
extension GatewayLoop {
    /// Says the gateway runs: first, and then once a poll interval has passed since the store
    /// last took it (well within its presence of three polls and more).
    func announceWhenDue() async throws {
        let now = ContinuousClock.now
        if let last = state.withLock({ $0.announced }), now - last < configuration.pollInterval { return }
        try await agent.store.announce(
            configuration.name, instance: instance, presence: configuration.presence)
        state.withLock { $0.announced = now }
    }

    /// The store's rollouts: as read less than a poll interval ago unless `fresh` (before the
    /// gateway concludes it is idle, so that it never exits for want of a rollout just made).
    func rollouts(fresh: Bool) async throws -> [String] {
        let now = ContinuousClock.now
        if !fresh, let known = state.withLock({ $0.rollouts }), now - known.read < configuration.pollInterval
        {
            return known.names
        }
        let names = try await agent.store.rollouts()
        state.withLock { $0.rollouts = (names, now) }
        return names
    }
}
