/// Where a rollout stands.
public enum RolloutState: String, Sendable, Codable {
    /// Devices are claimed.
    case active
    /// No new claims; updates in progress go on (`rollout pause`).
    case paused
    /// A canary device failed, or `maxFailures` devices did: no new claims.
    case halted
    /// No new claims, and gateways abort the updates they hold (`rollout cancel`).
    case cancelled
    /// Every device has its result.
    case completed

    /// Whether gateways may claim devices of it.
    public var takesClaims: Bool { self == .active }
}

/// What an operator does to a rollout.
public enum RolloutCommand: String, Sendable {
    case pause
    case resume
    case cancel

    /// The state `command` leads to from `state`, or nil when it does not apply there.
    public func target(from state: RolloutState) -> RolloutState? {
        switch (self, state) {
        case (.pause, .active), (.pause, .paused): return .paused
        case (.resume, .paused), (.resume, .active): return .active
        case (.cancel, .active), (.cancel, .paused), (.cancel, .halted), (.cancel, .cancelled):
            return .cancelled
        default: return nil
        }
    }
}
