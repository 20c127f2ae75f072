import RolloutStoreTesting
import XCTest

/// A test class whose tests use the scratch PostgreSQL server: found or started before its first
/// test, stopped after its last if it started it; the schema migrated before each test.
class PostgresTestCase: XCTestCase {
    /// XCTest runs one test at a time: no two tests touch this at once.
    nonisolated(unsafe) private static var server: Result<ScratchPostgres, any Error>?
    var backend: PostgresStoreUnderTest!

    override class func tearDown() {
        try? server?.get().stopIfOwned()
        server = nil
    }

    override func setUp() async throws {
        if Self.server == nil {
            do {
                Self.server = .success(try await ScratchPostgres.findOrStart())
            } catch {
                Self.server = .failure(error)
            }
        }
        backend = PostgresStoreUnderTest(server: try Self.server!.get())
        try await backend.connect(migrate: true).close()
    }
}
