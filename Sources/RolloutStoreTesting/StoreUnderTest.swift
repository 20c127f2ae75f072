import DFURollout
import Foundation

/// One back end as the contract tests see it: connections to one fresh store, and its clock.
public protocol StoreUnderTest: Sendable {
    /// Another connection to the same store, as another gateway (or operator) would open it.
    func open() async throws -> any RolloutStore
    /// Returns once the store's clock is past `instant` (a lease's end).
    func passTime(beyond instant: Date) async throws
    /// A lease short enough for `passTime` to pass quickly, long enough to outlive one call.
    var shortLease: Duration { get }
}

/// A clock that moves only when a test moves it.
public final class ManualClock: RolloutClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    /// A clock at a fixed instant of 2027.
    public init() {}

    public func now() -> Date { lock.withLock { current } }

    /// Moves the clock to `instant`, never back.
    public func set(_ instant: Date) { lock.withLock { current = max(current, instant) } }
}
