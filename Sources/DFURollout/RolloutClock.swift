import Foundation

/// The embedded store's time, for leases: the system's, or one a test moves by hand.
/// (PostgreSQL's store uses the database server's clock instead, the one all gateways share.)
public protocol RolloutClock: Sendable {
    func now() -> Date
}

/// The system's wall clock.
public struct SystemRolloutClock: RolloutClock {
    public init() {}
    public func now() -> Date { Date() }
}
