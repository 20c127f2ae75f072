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
    }

    func testPasswordFromTheEnvironmentFirst() throws {
        let location = try PostgresStoreLocation(url: "postgres://gw1@db/fleet")
        XCTAssertEqual(
            try PostgresPassword.find(
                for: location, environment: ["DFU_UPDATE_STORE_PASSWORD": "a", "PGPASSWORD": "b"]), "a")
        XCTAssertEqual(try PostgresPassword.find(for: location, environment: ["PGPASSWORD": "b"]), "b")
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
            try PostgresPassword.find(for: location, environment: ["PGPASSFILE": file.path]), "p:w\\d")
        XCTAssertThrowsError(
            try PostgresPassword.find(for: location, environment: ["PGPASSFILE": file.path + ".none"]))
        XCTAssertNil(try PostgresPassword.find(for: location, environment: [:]))
    }
}
