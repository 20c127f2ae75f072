import DFURollout
import Foundation
import RolloutStoreTesting

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
