import Foundation
import PostgresNIO
import TestSupport
import XCTest

/// docs/rollout.md's operator session, run as written on the scratch server (its host, roles
/// and database made this test's own), with the owner's password in `~/.pgpass` and the
/// operator's exported; then gateways on the rollout: the operator's role is refused at once
/// (`store_error`, naming the grants it lacks), a gateway's role updates every device.
final class OperatorSessionTests: PostgresTestCase {
    func testTheDocumentedSessionRunsAsWritten() async throws {
        let folder = try RolloutCLI.temporaryFolder(self)
        let session = try documentedSession()
        let tag = UUID().uuidString.prefix(6).lowercased()
        let (owner, alice, gateway, database) = ("owner_\(tag)", "alice_\(tag)", "gw_\(tag)", "fleet_\(tag)")
        try await makeDatabase(database, owner: owner)
        try await backend.createLoginRole(alice, in: "dfu_rollout_operator", password: "pw-\(alice)")
        try await backend.createLoginRole(gateway, in: "dfu_rollout_gateway", password: "pw-\(gateway)")
        let server = "127.0.0.1:\(backend.server.location.port)"
        try Data(
            "\(server):\(database):\(owner):pw-\(owner)\n\(server):\(database):\(gateway):pw-\(gateway)\n"
                .utf8
        ).write(to: folder.appendingPathComponent(".pgpass"))
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o600], ofItemAtPath: folder.appendingPathComponent(".pgpass").path)
        let devices = (0..<6).map { String(format: "C0:DE:50:04:00:%02X", $0 * 2) }
        let inventory = try writeInventory(devices, in: folder)

        // the session's words, on this server
        func local(_ text: String) -> String {
            text.replacingOccurrences(of: "owner@db.example/fleet", with: "\(owner)@\(server)/\(database)")
                .replacingOccurrences(of: "alice@db.example/fleet", with: "\(alice)@\(server)/\(database)")
                .replacingOccurrences(of: "fleet.json", with: inventory.path)
                .replacingOccurrences(of: "…", with: "pw-\(alice)")
        }
        var environment = ["HOME": folder.path]
        for line in session {
            let words = local(line).split(separator: " ").map(String.init)
            if words[0] == "export" {
                for assignment in words.dropFirst() {
                    let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
                    environment[parts[0]] = parts[1]
                }
                continue
            }
            let output = try await CLIRunner.run(Array(words.dropFirst()), environment: environment)
            XCTAssertEqual(output.status, 0, "\(line): \(output.stdoutText) \(output.stderr)")
            XCTAssertEqual(output.stderr, "", "\(line): warned")
        }
        XCTAssertEqual(session.filter { $0.hasPrefix("dfu-update") }.count, 5, "\(session)")
        let paused = try await CLIRunner.run(
            ["rollout", "status", "spring", "--json"], environment: environment)
        XCTAssertEqual(try paused.jsonLines().first?.string("state"), "paused", paused.stderr)
        XCTAssertEqual(try paused.jsonLines().first?.objects("devices").count, devices.count)

        // gateways: the operator's role lacks the gateway's grants; a gateway's role has them
        let resumed = try await CLIRunner.run(["rollout", "resume", "spring"], environment: environment)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let simulated = try writeSimulatedDevices(devices, in: folder)
        let gatewayArguments = [
            "gateway", "--simulated-devices", simulated.path, "--exit-when-idle", "--json",
        ]
        let refused = try await CLIRunner.run(
            gatewayArguments + ["--name", "hall-x"], environment: environment)
        XCTAssertEqual(refused.status, 78, "the configuration must change: \(refused.stdoutText)")
        let error = try XCTUnwrap(try refused.jsonLines().last).object("error")
        XCTAssertEqual(try error.string("class"), "store_error")
        let message = try error.string("message")
        XCTAssertTrue(message.contains("PostgreSQL 42501: permission denied for table gateways"), message)
        XCTAssertTrue(message.contains("GRANT dfu_rollout_gateway TO \(alice)"), message)
        XCTAssertFalse(refused.stdoutText.contains("store_unavailable"), refused.stdoutText)

        let store = "postgres://\(gateway)@\(server)/\(database)"
        let updated = try await CLIRunner.run(
            gatewayArguments + ["--name", "hall-a", "--store", store], timeout: .seconds(120),
            environment: environment)
        XCTAssertEqual(updated.status, 0, updated.stderr)
        let done = try await CLIRunner.run(
            ["rollout", "status", "spring", "--json"], environment: environment)
        XCTAssertEqual(try done.jsonLines().first?.string("state"), "completed", done.stdoutText)
    }

    /// The commands of docs/rollout.md's first shell block: `export` and `dfu-update` lines.
    private func documentedSession() throws -> [String] {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(
            contentsOf: repository.appendingPathComponent("docs/rollout.md"), encoding: .utf8)
        let block = try XCTUnwrap(text.components(separatedBy: "```sh\n").dropFirst().first)
        let lines = try XCTUnwrap(block.components(separatedBy: "```").first).split(separator: "\n")
        return lines.map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }

    /// A database of its own whose owner is a login role with a password.
    private func makeDatabase(_ database: String, owner: String) async throws {
        _ = try await backend.withClient { client in
            try await client.query(
                PostgresQuery(unsafeSQL: "CREATE ROLE \(owner) LOGIN PASSWORD 'pw-\(owner)'"))
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(database) OWNER \(owner)"))
        }
    }

    private func writeInventory(_ devices: [String], in folder: URL) throws -> URL {
        try FileManager.default.copyItem(
            at: try Fixtures.url("secure/secure_app_20_hex_signed.zip"),
            to: folder.appendingPathComponent("app.zip"))
        let entries = devices.map { "{\"device\": \"\($0)\"}" }.joined(separator: ", ")
        let url = folder.appendingPathComponent("fleet.json")
        try Data("{\"defaults\": {\"package\": \"app.zip\"}, \"devices\": [\(entries)]}".utf8).write(to: url)
        return url
    }

    private func writeSimulatedDevices(_ devices: [String], in folder: URL) throws -> URL {
        let entries = devices.map {
            "{\"device\": \"\($0)\", \"simulate\": {\"kind\": \"secure-app\", \"firmware_version\": \"0.0.1\"}}"
        }
        let url = folder.appendingPathComponent("sim.json")
        try Data("{\"devices\": [\(entries.joined(separator: ", "))]}".utf8).write(to: url)
        return url
    }
}
