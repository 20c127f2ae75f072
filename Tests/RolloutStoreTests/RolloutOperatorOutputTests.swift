import DFURollout
import Foundation
import RolloutStoreTesting
import TestSupport
import XCTest

/// What `rollout list|status` and `gateway` tell an operator: the rollouts a store holds, devices
/// given back or skipped, and names refused (issue 35).
final class RolloutOperatorOutputTests: XCTestCase {
    func testListNamesEveryRolloutAndTheMissingOnePointsAtIt() async throws {
        let (_, inventory, store) = try RolloutCLI.workspace(self, devices: 2)
        let empty = try await RolloutCLI.run(["list", "--store", store])
        XCTAssertEqual(empty.status, 0)
        XCTAssertEqual(try empty.object.objects("rollouts").count, 0)
        let emptyText = try await CLIRunner.run(["rollout", "list", "--store", store])
        XCTAssertEqual(emptyText.stdoutText, "the store has no rollouts: \(store)\n")
        for name in ["spring", "summer"] {
            _ = try await RolloutCLI.run(["create", name, inventory, "--store", store])
        }
        _ = try await RolloutCLI.run(["pause", "summer", "--store", store])
        let listed = try await RolloutCLI.run(["list", "--store", store]).object.objects("rollouts")
        XCTAssertEqual(try listed.map { try $0.string("rollout") }, ["spring", "summer"])
        XCTAssertEqual(try listed.map { try $0.string("state") }, ["active", "paused"])
        XCTAssertEqual(try listed.map { try $0.int("devices") }, [2, 2])
        XCTAssertEqual(try listed.map { try $0.int("pending") }, [2, 2])

        let missing = try await RolloutCLI.run(["status", "nosuch", "--store", store])
        XCTAssertTrue(try missing.object.object("error").string("message").contains("rollout list"))
        let text = try await CLIRunner.run(["rollout", "create", "autumn", inventory, "--store", store])
        XCTAssertEqual(text.stdoutText, "created rollout autumn: 2 devices, 1 package\n")
    }

    /// A device given back is no longer held, in JSON and in the text; a skip has its reason
    /// and no error.
    func testStatusTellsHeldFromGivenBackAndASkipFromAFailure() async throws {
        let (_, inventory, store) = try RolloutCLI.workspace(self, devices: 3)
        _ = try await RolloutCLI.run(["create", "spring", inventory, "--store", store])
        let gateway = try EmbeddedRolloutStore(path: store)
        let claims = try await gateway.claim(
            "spring", for: "hall-a", among: nil, limit: 3, lease: .seconds(60))
        try await gateway.release(claims[0])
        try await gateway.release(claims[1])
        try await gateway.report(
            claims[2], DeviceOutcome(result: .skipped, report: Data(#"{"reason": "up to date"}"#.utf8)))
        await gateway.close()

        let devices = try await RolloutCLI.run(["status", "spring", "--store", store]).object.objects(
            "devices")
        XCTAssertEqual(try devices.map { try $0.bool("held") }, [false, false, false])
        XCTAssertTrue(devices[2].isNull("error"))
        XCTAssertEqual(try devices[2].string("reason"), "up to date")
        let text = try await CLIRunner.run(["rollout", "status", "spring", "--store", store]).stdoutText
        XCTAssertTrue(text.contains("gateway hall-a: 2 given back, 1 skipped,"), text)
        XCTAssertFalse(text.contains("held"), text)
    }

    /// A rollout of more devices than a page: `status --json` is still one object on one line,
    /// every device in inventory order, the summary counting them all; the text has every line.
    func testStatusOfManyPagesIsOneObjectOnOneLine() async throws {
        let folder = try RolloutCLI.temporaryFolder(self)
        let store = folder.appendingPathComponent("rollouts.sqlite").path
        let spec = RolloutFixtures.spec(devices: 2_345)
        let gateway = try EmbeddedRolloutStore(path: store)
        try await gateway.create(spec)
        for claim in try await gateway.claim(
            spec.name, for: "hall-a", among: nil, limit: 3, lease: .seconds(60))
        {
            try await gateway.report(claim, DeviceOutcome(result: .completed))
        }
        let last = try await gateway.claim(
            spec.name, for: "hall-b", among: [spec.devices[2_344].device], limit: 1, lease: .seconds(60))
        try await gateway.report(last[0], DeviceOutcome(result: .failed, error: "lost link"))
        await gateway.close()

        let run = try await CLIRunner.run(["rollout", "status", spec.name, "--store", store, "--json"])
        XCTAssertEqual(run.stdoutText.filter { $0 == "\n" }.count, 1, "one line")
        let status = try await RolloutCLI.run(["status", spec.name, "--store", store]).object
        let devices = try status.objects("devices")
        XCTAssertEqual(try devices.map { try $0.string("device") }, spec.devices.map(\.device))
        XCTAssertEqual(try devices[2_344].string("error"), "lost link")
        let summary = try status.object("summary")
        XCTAssertEqual(try summary.int("completed"), 3)
        XCTAssertEqual(try summary.int("failed"), 1)
        XCTAssertEqual(try summary.int("pending"), 2_341)
        XCTAssertEqual(try status.objects("gateways").map { try $0.string("gateway") }, ["hall-a", "hall-b"])
        let text = try await CLIRunner.run(["rollout", "status", spec.name, "--store", store]).stdoutText
        XCTAssertEqual(
            text.split(separator: "\n").count, 1 + 2_345 + 2 + 1, "rollout, devices, gateways, summary")
        XCTAssertTrue(text.hasSuffix("3 completed, 1 failed, 2341 pending\n"), String(text.suffix(80)))
    }

    func testEmptyNamesAreUsageErrors() async throws {
        let (_, inventory, store) = try RolloutCLI.workspace(self, devices: 1)
        let rollout = try await RolloutCLI.run(["create", "", inventory, "--store", store])
        XCTAssertEqual(rollout.status, 64)
        XCTAssertEqual(try rollout.object.object("error").string("class"), "usage")
        // a name that `rollout status spring` would not find, or that breaks `rollout list`'s lines
        for name in ["spring ", "spring\nautumn", "spring\t"] {
            let refused = try await RolloutCLI.run(["create", name, inventory, "--store", store])
            XCTAssertEqual(refused.status, 64, name)
            XCTAssertEqual(try refused.object.object("error").string("class"), "usage", name)
        }
        let listed = try await RolloutCLI.run(["list", "--store", store])
        XCTAssertEqual(try listed.object.objects("rollouts").count, 0, "nothing stored")
        let gateway = try await CLIRunner.run(["gateway", "--name", " ", "--store", store, "--json"])
        XCTAssertEqual(gateway.status, 64)
        XCTAssertEqual(try gateway.errorObject().string("class"), "usage")
    }
}

/// `--help` of the fleet, gateway and rollout commands: every option that has a default states
/// it, and the gateway's names the systemd unit the .deb installs.
final class RolloutHelpTests: XCTestCase {
    private let repository = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()

    func testEveryOptionStatesItsDefault() async throws {
        // options without a default: files, limits and passkey sources that apply only when given
        let noDefault: Set = [
            "--slot-size", "--simulated-devices", "--report", "--state", "--passkey-file", "--passkey-env",
            "--passkey-command",
        ]
        for command in [["gateway"], ["fleet"], ["rollout", "create"]] {
            let help = try await CLIRunner.run(command + ["--help"]).stdoutText
            // one entry per option, with its wrapped lines and discussion
            let entries = help.components(separatedBy: "\n  -").dropFirst()
            for entry in entries {
                guard let option = entry.split(separator: " ").first.map({ "-" + $0 }),
                    entry.hasPrefix("-"), entry.contains(" <"), !noDefault.contains(option)
                else { continue }
                XCTAssertTrue(entry.lowercased().contains("default"), "\(command) \(option):\(entry)")
            }
            for (option, value) in [
                ("--concurrency", "4"), ("--lease", "30"), ("--poll", "2"), ("--canary", "0"),
            ]
            where help.contains(option + " <") {
                XCTAssertTrue(help.contains("(default: \(value))"), "\(command) \(option)")
            }
        }
    }

    func testGatewayHelpNamesTheInstalledUnit() async throws {
        let help = try await CLIRunner.run(["gateway", "--help"]).stdoutText
        let unit = "/usr/lib/systemd/system/dfu-update-gateway.service"
        XCTAssertTrue(help.contains(unit), help)
        // scripts/package.sh installs packaging/systemd/*.service there
        let packaging = try String(
            contentsOf: repository.appendingPathComponent("scripts/package.sh"), encoding: .utf8)
        XCTAssertTrue(packaging.contains("usr/lib/systemd/system/"))
        XCTAssertTrue(
            FileManager.default.fileExists(
                atPath: repository.appendingPathComponent("packaging/systemd/dfu-update-gateway.service").path
            ))
    }
}
