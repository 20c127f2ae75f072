import Foundation
import TestSupport
import XCTest

/// What `--store` (and `DFU_UPDATE_STORE`) takes: a PostgreSQL URL or a file the user clearly
/// meant as a store. A typo is a usage error, never a new embedded store at a strange path.
final class StoreArgumentCLITests: XCTestCase {
    func testAStoreArgumentThatIsNeitherAURLNorAStoreFileIsAUsageError() async throws {
        let folder = try RolloutCLI.temporaryFolder(self)
        let inventory = try RolloutCLI.inventory(devices: 1, in: folder).path
        let refused: [(store: String, named: String)] = [
            ("postgress://alice@db.example/fleet", "postgress:"),
            ("postgres:/alice@db.example/fleet", "postgres:"),
            ("", "is empty"),
            (folder.appendingPathComponent("rollouts").path, "does not exist"),
            (folder.path, "is a folder"),
        ]
        for (store, named) in refused {
            let failed = try await RolloutCLI.run(["create", "spring", inventory, "--store", store])
            XCTAssertEqual(failed.status, 64, store)
            let error = try failed.object.object("error")
            XCTAssertEqual(try error.string("class"), "usage", store)
            let message = try error.string("message")
            XCTAssertTrue(message.hasPrefix("--store"), message)
            XCTAssertTrue(message.contains(named), message)
            XCTAssertTrue(message.contains("postgres://USER@HOST[:PORT]/DB"), message)
            XCTAssertTrue(message.contains(".sqlite, .sqlite3 or .db"), message)
        }
        // checked before the inventory: a usage error, not the missing inventory's
        let missing = folder.appendingPathComponent("none.json").path
        let first = try await RolloutCLI.run([
            "create", "spring", missing, "--store", "postgress://a@db/fleet",
        ])
        XCTAssertEqual(first.status, 64)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "postgress:"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: "postgres:"))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
            ["app.zip", "rollout.json"])

        let fromEnvironment = try await RolloutCLI.run(
            ["status", "spring"], environment: ["DFU_UPDATE_STORE": "mysql://alice@db.example/fleet"])
        XCTAssertEqual(fromEnvironment.status, 64)
        XCTAssertTrue(
            try fromEnvironment.object.object("error").string("message").hasPrefix(
                "DFU_UPDATE_STORE mysql://alice@db.example/fleet: mysql: is not a store's scheme"))
    }

    /// Only `rollout create` and `rollout migrate` make a new store file: a command that reads a
    /// store (or a gateway, or the page) given a path where none is says so, and makes nothing,
    /// instead of waiting on an empty store a typo made; `rollout list` lists none.
    /// An existing file that is no store (a package given for the store) names the file and
    /// what to give instead, not SQLite's number and the statement it failed in.
    func testAFileThatIsNoStoreIsNamed() async throws {
        let folder = try RolloutCLI.temporaryFolder(self)
        let file = folder.appendingPathComponent("app.zip")
        try Data(repeating: 0x50, count: 4096).write(to: file)
        let failed = try await RolloutCLI.run(["list", "--store", file.path])
        XCTAssertEqual(failed.status, 64)
        let error = try failed.object.object("error")
        XCTAssertEqual(try error.string("class"), "not_a_store")
        let message = try error.string("message")
        XCTAssertTrue(message.contains("\(file.path) is not a rollout store"), message)
        XCTAssertFalse(message.contains("PRAGMA"), message)
    }

    /// Another program's SQLite database given as the store is refused by every command, the
    /// gateway's too, and keeps its bytes: a store is never made inside it.
    func testAnotherProgramsDatabaseIsNoStore() async throws {
        let folder = try RolloutCLI.temporaryFolder(self)
        let inventory = try RolloutCLI.inventory(devices: 1, in: folder).path
        let database = try EmbeddedForeignDatabaseTests.anotherProgramsDatabase(in: folder)
        let before = try Data(contentsOf: database)
        for command in [
            ["rollout", "create", "spring", inventory], ["rollout", "list"], ["rollout", "migrate"],
            ["gateway", "--exit-when-idle"],
        ] {
            let failed = try await CLIRunner.run(command + ["--store", database.path, "--json"])
            XCTAssertEqual(failed.status, 64, "\(command): \(failed.stdoutText) \(failed.stderr)")
            let error = try failed.errorObject()
            XCTAssertEqual(try error.string("class"), "not_a_store", "\(command)")
            XCTAssertTrue(
                try error.string("message").hasPrefix(
                    "\(database.path) is an SQLite database of another program (its tables: notes, tags)"),
                "\(command)")
        }
        XCTAssertEqual(try Data(contentsOf: database), before)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
            ["app.zip", "notes.db", "rollout.json"])
    }

    func testOnlyCreateAndMigrateMakeANewStoreFile() async throws {
        let folder = try RolloutCLI.temporaryFolder(self)
        let store = folder.appendingPathComponent("rolouts.sqlite").path
        for command in [
            ["rollout", "status", "spring"], ["rollout", "pause", "spring"],
            ["gateway", "--exit-when-idle"], ["rollout", "serve", "--listen", "127.0.0.1:0"],
        ] {
            let failed = try await CLIRunner.run(command + ["--store", store, "--json"])
            XCTAssertEqual(failed.status, 64, "\(command): \(failed.stdoutText) \(failed.stderr)")
            let error = try failed.errorObject()
            XCTAssertEqual(try error.string("class"), "no_such_store", "\(command)")
            let message = try error.string("message")
            XCTAssertTrue(message.contains("no rollout store at \(store) (--store)"), message)
            XCTAssertTrue(message.contains("`rollout create` makes one"), message)
            XCTAssertFalse(FileManager.default.fileExists(atPath: store), "\(command) made the store")
        }
        let listed = try await RolloutCLI.run(["list", "--store", store])
        XCTAssertEqual(listed.status, 0)
        XCTAssertEqual(try listed.object.objects("rollouts").count, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store), "`rollout list` made the store")
        let migrated = try await RolloutCLI.run(["migrate", "--store", store])
        XCTAssertEqual(migrated.status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: store))
    }

    /// `file:PATH`, an existing file of any name, and a new file with a store's extension.
    func testAStoreFileTheUserMeantIsAccepted() async throws {
        let folder = try RolloutCLI.temporaryFolder(self)
        let inventory = try RolloutCLI.inventory(devices: 1, in: folder).path
        let plain = folder.appendingPathComponent("rollouts").path
        let created = try await RolloutCLI.run(["create", "a", inventory, "--store", "file:\(plain)"])
        XCTAssertEqual(created.status, 0)
        let existing = try await RolloutCLI.run(["status", "a", "--store", plain])
        XCTAssertEqual(existing.status, 0)
        for name in ["r.sqlite", "r.sqlite3", "r.db"] {
            let store = folder.appendingPathComponent(name).path
            let made = try await RolloutCLI.run(["create", "b", inventory, "--store", store])
            XCTAssertEqual(made.status, 0, name)
        }
    }

    /// With `--verbose`, one log line names the store it opens.
    func testVerboseNamesTheStoreOnce() async throws {
        let (_, inventory, store) = try RolloutCLI.workspace(self, devices: 1)
        let output = try await CLIRunner.run([
            "rollout", "create", "a", inventory, "--store", store, "--verbose",
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        let naming = output.stderr.split(separator: "\n").filter { $0.contains("rollout store:") }
        XCTAssertEqual(naming.count, 1, output.stderr)
        XCTAssertTrue(
            naming.first?.hasSuffix("rollout store: the embedded store \(store)") ?? false, output.stderr)
    }
}
