import Foundation
import TestSupport
import XCTest

/// A passkey reaches no output, file or store row: `fleet` (plan and run, its state file and
/// report), `rollout create` and `gateway` with an inventory that names where the passkey is,
/// while the passkey sits in the environment. A passkey written into the inventory is refused.
final class PasskeySecrecyTests: XCTestCase {
    private let passkey = "482193"
    private let variable = "DFU_TEST_DOOR_PASSKEY"

    private func inventory(in folder: URL, extra: String) throws -> String {
        try FileManager.default.copyItem(
            at: try Fixtures.url("secure/secure_app_20_hex_signed.zip"),
            to: folder.appendingPathComponent("app.zip"))
        let url = folder.appendingPathComponent("fleet.json")
        try Data(
            """
            {"defaults": {"package": "app.zip"},
             "devices": [{"device": "C0:DE:00:03:00:10", "security": "authenticated", \(extra)
                          "simulate": {"kind": "secure-app", "firmware_version": "0.0.1"}}]}
            """.utf8
        ).write(to: url)
        return url.path
    }

    func testNoOutputFileOrStoreRowHoldsThePasskey() async throws {
        let bench = try GatewayTestBench(self)
        let folder = bench.folder
        let inventory = try inventory(in: folder, extra: "\"passkey_env\": \"\(variable)\",")
        let state = folder.appendingPathComponent("state.json").path
        let report = folder.appendingPathComponent("report.json").path
        let environment = [variable: passkey]
        let pairing = ["--passkey-env", variable, "--keep-bond"]

        let plan = try await CLIRunner.run(
            ["fleet", inventory, "--plan", "--json"] + pairing, environment: environment)
        XCTAssertEqual(plan.status, 0, plan.stderr)
        let planned = try XCTUnwrap(try plan.jsonLines().first { try $0.string("event") == "plan" })
        XCTAssertEqual(try planned.string("security"), "authenticated")
        XCTAssertEqual(try planned.string("passkey_source"), "the environment variable \(variable)")
        let text = try await CLIRunner.run(
            ["fleet", inventory, "--plan"] + pairing, environment: environment)
        XCTAssertTrue(
            text.stdoutText.contains(
                "security: authenticated, passkey from the environment variable \(variable)"),
            text.stdoutText)
        let run = try await CLIRunner.run(
            ["fleet", inventory, "--json", "--state", state, "--report", report] + pairing,
            environment: environment)
        XCTAssertEqual(run.status, 0, run.stdoutText + run.stderr)

        let store = bench.storePath
        let created = try await CLIRunner.run(
            ["rollout", "create", "doors", inventory, "--store", store, "--json"], environment: environment)
        XCTAssertEqual(created.status, 0, created.stdoutText + created.stderr)
        let gateway = try await CLIRunner.run(
            [
                "gateway", "--store", store, "--name", "hall", "--simulated-devices", inventory,
                "--exit-when-idle", "--json",
            ]
                + pairing, timeout: .seconds(120), environment: environment)
        XCTAssertEqual(gateway.status, 0, gateway.stdoutText + gateway.stderr)
        XCTAssertTrue(gateway.stdoutText.contains("\"result\":\"completed\""), gateway.stdoutText)

        var stored = Data()
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path)
        where file.hasPrefix("rollouts.sqlite") {
            stored += try Data(contentsOf: folder.appendingPathComponent(file))
        }
        XCTAssertNotNil(stored.range(of: Data(variable.utf8)), "the store keeps the reference")
        let places: [(String, Data)] = [
            ("the plan", plan.stdout + Data(plan.stderr.utf8)), ("the plan's lines", text.stdout),
            ("the run", run.stdout + Data(run.stderr.utf8)),
            ("the state file", try Data(contentsOf: URL(fileURLWithPath: state))),
            ("the report", try Data(contentsOf: URL(fileURLWithPath: report))),
            ("rollout create", created.stdout + Data(created.stderr.utf8)),
            ("the gateway", gateway.stdout + Data(gateway.stderr.utf8)), ("the store", stored),
        ]
        for (place, bytes) in places {
            XCTAssertFalse(bytes.isEmpty, place)
            XCTAssertNil(bytes.range(of: Data(passkey.utf8)), "\(place) holds the passkey")
        }
    }

    func testAnInventoryWithAPasskeyInItIsADataError() async throws {
        let bench = try GatewayTestBench(self)
        let inventory = try inventory(in: bench.folder, extra: "\"passkey\": \"\(passkey)\",")
        for arguments in [
            ["fleet", inventory, "--json"],
            ["rollout", "create", "doors", inventory, "--store", bench.storePath, "--json"],
        ] {
            let output = try await CLIRunner.run(arguments)
            XCTAssertEqual(output.status, 65, arguments.joined(separator: " "))
            let error = try output.errorObject()
            XCTAssertEqual(try error.string("class"), "inline_secret")
            XCTAssertTrue(try error.string("message").contains("passkey_env"))
            XCTAssertFalse(output.stdoutText.contains(passkey) || output.stderr.contains(passkey))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: bench.storePath), "the store was made")
    }
}
