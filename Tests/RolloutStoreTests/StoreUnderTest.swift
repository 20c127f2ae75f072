import DFURollout
import Foundation

/// One back end as the contract tests see it: connections to one fresh store, and its clock.
protocol StoreUnderTest: Sendable {
    /// Another connection to the same store, as another gateway (or operator) would open it.
    func open() async throws -> any RolloutStore
    /// Returns once the store's clock is past `instant` (a lease's end).
    func passTime(beyond instant: Date) async throws
    /// A lease short enough for `passTime` to pass quickly, long enough to outlive one call.
    var shortLease: Duration { get }
}

/// A clock that moves only when a test moves it.
final class ManualClock: RolloutClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    func now() -> Date { lock.withLock { current } }

    func set(_ instant: Date) { lock.withLock { current = max(current, instant) } }
}

/// The embedded store in a file of a temporary directory, on a clock the tests move.
final class EmbeddedStoreUnderTest: StoreUnderTest {
    let directory: URL
    let clock = ManualClock()
    let shortLease = Duration.seconds(30)

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rollout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var path: String { directory.appendingPathComponent("rollout.sqlite").path }

    func open() throws -> any RolloutStore { try EmbeddedRolloutStore(path: path, clock: clock) }

    func passTime(beyond instant: Date) { clock.set(instant.addingTimeInterval(1)) }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}
