import Foundation
import RolloutStoreTesting
import XCTest

@testable import DFURollout

/// An SQLite database another program made, given as a store by mistake, is refused and left
/// byte for byte as it was: no tables added, no schema version, no change of journal mode.
final class EmbeddedForeignDatabaseTests: XCTestCase {
    /// A database with the tables of some other program, at `folder/name`.
    static func anotherProgramsDatabase(in folder: URL, named name: String = "notes.db") throws -> URL {
        let url = folder.appendingPathComponent(name)
        let file = try SQLiteConnection(path: url.path)
        try file.execute(
            "CREATE TABLE notes (body TEXT); CREATE TABLE tags (name TEXT); INSERT INTO notes VALUES ('keep me')"
        )
        file.close()
        return url
    }

    func testAnotherProgramsDatabaseIsRefusedAndLeftAsItWas() throws {
        let folder = try RolloutCLI.temporaryFolder(self)
        let url = try Self.anotherProgramsDatabase(in: folder)
        let before = try Data(contentsOf: url)

        XCTAssertThrowsError(try EmbeddedRolloutStore(path: url.path)) { error in
            guard case .storage(let failure)? = error as? RolloutStoreError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(failure.kind, .notAStore)
            XCTAssertEqual(
                failure.message,
                "\(url.path) is an SQLite database of another program (its tables: notes, tags), not a "
                    + "rollout store; it is left as it was; give the store's file, or a new file ending in "
                    + ".sqlite, .sqlite3 or .db")
        }
        XCTAssertEqual(try Data(contentsOf: url), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["notes.db"])
    }

    /// A file SQLite reads as an empty database (no bytes at all) is no other program's: it is
    /// made a store, as a new file is.
    func testAnEmptyFileBecomesAStore() async throws {
        let folder = try RolloutCLI.temporaryFolder(self)
        let url = folder.appendingPathComponent("empty.sqlite")
        try Data().write(to: url)
        let store = try EmbeddedRolloutStore(path: url.path)
        let spec = RolloutFixtures.spec(devices: 1)
        try await store.create(spec)
        let names = try await store.rollouts()
        XCTAssertEqual(names, [spec.name])
        try await store.close()
    }
}
