import DFURollout
import Foundation
import RolloutStoreTesting
import XCTest

/// The embedded store's connection keeps its statements prepared between calls; closing it
/// still leaves the file whole.
final class EmbeddedConnectionTests: XCTestCase {
    /// A store closed after claims and reports leaves no write-ahead log beside its file (the
    /// log is folded in only once no statement is left open), and the file alone holds them.
    func testAClosedStoreLeavesOnlyItsFile() async throws {
        let backend = try EmbeddedStoreUnderTest()
        defer { backend.remove() }
        let store = try backend.open()
        let spec = RolloutFixtures.spec(devices: 3)
        try await store.create(spec)
        for _ in 0..<2 {
            let claims = try await store.claim(
                spec.name, for: "gw", among: nil, limit: 1, lease: .seconds(60))
            let claim = try XCTUnwrap(claims.first)
            try await store.report(claim, DeviceOutcome(result: .completed))
        }
        try await store.close()

        XCTAssertFalse(FileManager.default.fileExists(atPath: backend.path + "-wal"), "the log was left")
        let reopened = try backend.open()
        let results = try await reopened.summary(of: spec.name).results
        try await reopened.close()
        XCTAssertEqual(results, [.completed: 2])
    }
}
