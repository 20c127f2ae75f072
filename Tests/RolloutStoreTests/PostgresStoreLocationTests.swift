import DFURolloutPostgres
import Foundation
import XCTest

/// Store URLs and where their passwords come from: never the URL.
final class PostgresStoreLocationTests: XCTestCase {
    func testParsesTheURL() throws {
        let location = try PostgresStoreLocation(
            url: "postgresql://gw1@db.example:6543/fleet?sslmode=require")
        XCTAssertEqual(
            location,
            PostgresStoreLocation(
                host: "db.example", port: 6543, user: "gw1", database: "fleet", tls: .require))
        XCTAssertEqual(try PostgresStoreLocation(url: "postgres://op@db").database, "op")
        XCTAssertEqual(try PostgresStoreLocation(url: "postgres://op@db/x").tls, .prefer)
    }

    func testRefusesAPasswordInTheURLAndUnknownOptions() {
        XCTAssertThrowsError(try PostgresStoreLocation(url: "postgres://gw1:secret@db/fleet")) {
            XCTAssertFalse(String(describing: $0).contains("secret"))
        }
        XCTAssertThrowsError(try PostgresStoreLocation(url: "postgres://gw1@db/fleet?sslmode=sometimes"))
        XCTAssertThrowsError(try PostgresStoreLocation(url: "mysql://gw1@db/fleet"))
        for port in ["0", "99999"] {
            XCTAssertThrowsError(try PostgresStoreLocation(url: "postgres://gw1@db:\(port)/fleet")) {
                XCTAssertTrue(String(describing: $0).contains("port \(port) is not from 1 to 65535"), "\($0)")
            }
        }
    }

    func testPasswordFromTheEnvironmentFirst() throws {
        let location = try PostgresStoreLocation(url: "postgres://gw1@db/fleet")
        XCTAssertEqual(
            try PostgresPassword.find(
                for: location, environment: ["DFU_UPDATE_STORE_PASSWORD": "a", "PGPASSWORD": "b"]),
            PostgresPassword(secret: "a", source: "DFU_UPDATE_STORE_PASSWORD"))
        XCTAssertEqual(
            try PostgresPassword.find(for: location, environment: ["PGPASSWORD": "b"]),
            PostgresPassword(secret: "b", source: "PGPASSWORD"))
        // the exported store's own user: its exported password
        XCTAssertEqual(
            try PostgresPassword.find(
                for: location,
                environment: [
                    "DFU_UPDATE_STORE": "postgres://gw1@db:5432/other", "DFU_UPDATE_STORE_PASSWORD": "a",
                ]
            ).secret, "a")
    }

    /// The documented session: the operator's store and password exported, `migrate` run with
    /// `--store` as the owner. The exported password is the operator's, so the owner's comes
    /// from the password file; and without a line there, none, saying why.
    func testAnExportedPasswordIsOnlyTheExportedStoreUsers() throws {
        let owner = try PostgresStoreLocation(url: "postgres://owner@db.example/fleet")
        let file = try passwordFile("db.example:5432:fleet:owner:owners\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let environment = [
            "DFU_UPDATE_STORE": "postgres://alice@db.example/fleet", "DFU_UPDATE_STORE_PASSWORD": "alices",
            "HOME": file.deletingLastPathComponent().path, "DFU_UPDATE_STORE_PASSFILE": file.path,
        ]
        XCTAssertEqual(
            try PostgresPassword.find(for: owner, environment: environment),
            PostgresPassword(secret: "owners", source: "line 1 of \(file.path)"))
        var gateway = owner
        gateway.user = "gw"
        let none = try PostgresPassword.find(for: gateway, environment: environment)
        XCTAssertNil(none.secret)
        XCTAssertEqual(
            none.source,
            "DFU_UPDATE_STORE_PASSWORD is the password of alice@db.example:5432 (DFU_UPDATE_STORE), not of "
                + "gw@db.example:5432, and \(file.path) has no line for db.example:5432:fleet:gw")
    }

    private func passwordFile(_ text: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pgpass-\(UUID().uuidString)")
        try Data(text.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return file
    }

    func testPasswordFileReadableOnlyByItsOwner() throws {
        let location = try PostgresStoreLocation(url: "postgres://gw1@db:5432/fleet")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pgpass-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let lines = "# comment\nother:*:*:*:no\ndb:5432:fleet:gw2:no\n*:5432:fleet:gw1:p\\:w\\\\d\n"
        try Data(lines.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        XCTAssertThrowsError(try PostgresPassword.find(for: location, environment: ["PGPASSFILE": file.path]))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        XCTAssertEqual(
            try PostgresPassword.find(for: location, environment: ["PGPASSFILE": file.path]),
            PostgresPassword(secret: "p:w\\d", source: "line 4 of \(file.path)"))
        XCTAssertThrowsError(
            try PostgresPassword.find(for: location, environment: ["PGPASSFILE": file.path + ".none"]))
        XCTAssertNil(try PostgresPassword.find(for: location, environment: [:]).secret)
    }
}
