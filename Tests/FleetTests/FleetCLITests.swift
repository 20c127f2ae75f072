import DFUFleet
import Foundation
import NordicDFU
import TestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `dfu-update fleet` as users run it, on an inventory of simulated devices: `--plan` writes
/// nothing, a run prints the contract's events for every device, writes its report and state,
/// and exits 1 when a device failed.
final class FleetCLITests: XCTestCase {
    /// The inventory: four simulated devices, one of which refuses the package (hardware 51).
    private func inventory(in folder: URL) throws -> URL {
        let package = try FleetFixtures.secure(version: 20000, seed: 5)
        try Data(package.images[0].firmware).write(to: folder.appendingPathComponent("app.bin"))
        try Data(package.images[0].initPacket ?? []).write(to: folder.appendingPathComponent("app.dat"))
        let json = """
            {"defaults": {"package": "app.bin"},
             "devices": [
               {"device": "C0:DE:00:00:00:10", "simulate": {"kind": "secure-app", "firmware_version": "1.0.0"}},
               {"device": "C0:DE:00:00:00:20", "simulate": {"kind": "secure"}},
               {"device": "Thermo-1", "simulate": {"kind": "secure-app-bonded", "firmware_version": "2.0.0"}},
               {"device": "Odd-1", "simulate": {"kind": "secure-app", "firmware_version": "1.0.0", "hw_version": 51}}
             ]}
            """
        let url = folder.appendingPathComponent("fleet.json")
        try Data(json.utf8).write(to: url)
        return url
    }

    /// Runs the `dfu-update` built next to this test bundle; its JSON Lines, as objects.
    private func fleet(_ arguments: [String]) async throws -> (status: Int32, lines: [[String: Any]]) {
        let output = try await CLIRunner.run(["fleet"] + arguments + ["--json"])
        let lines = try output.stdout.split(separator: UInt8(ascii: "\n")).map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
        }
        return (output.status, lines)
    }

    func testPlanThenRun() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let inventory = try inventory(in: folder).path
        let state = folder.appendingPathComponent("state.json")
        let report = folder.appendingPathComponent("report.json")
        let devices = ["C0:DE:00:00:00:10", "C0:DE:00:00:00:20", "Thermo-1", "Odd-1"]

        let plan = try await fleet([inventory, "--plan", "--state", state.path, "--report", report.path])
        XCTAssertEqual(plan.status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: state.path), "--plan wrote the state file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: report.path), "--plan wrote the report")
        // devices are read at once, so their plan lines come in the order the reads end
        let planned = plan.lines.filter { $0["event"] as? String == "plan" }
        let decisions = Dictionary(
            uniqueKeysWithValues: planned.compactMap { line in
                (line["device"] as? String).map { ($0, line["decision"] as? String) }
            })
        XCTAssertEqual(planned.count, devices.count)
        XCTAssertEqual(
            decisions,
            [
                "C0:DE:00:00:00:10": "update", "C0:DE:00:00:00:20": "unknown", "Thermo-1": "skip",
                "Odd-1": "update",
            ])
        XCTAssertFalse(plan.lines.contains { ["state", "progress"].contains($0["event"] as? String) })

        let run = try await fleet([
            inventory, "--state", state.path, "--report", report.path, "--concurrency", "3",
        ])
        XCTAssertEqual(run.status, 1, "one device failed")
        for device in devices {
            let lines = run.lines.filter { $0["device"] as? String == device }
            XCTAssertEqual(lines.last?["event"] as? String, "result", device)
        }
        let results = Dictionary(
            uniqueKeysWithValues: run.lines.filter { $0["event"] as? String == "result" }.map {
                ($0["device"] as! String, $0)
            })
        XCTAssertEqual(results["C0:DE:00:00:00:10"]?["result"] as? String, "completed")
        XCTAssertEqual(results["C0:DE:00:00:00:10"]?["version_after"] as? String, "2.0.0")
        XCTAssertEqual(results["C0:DE:00:00:00:20"]?["result"] as? String, "completed")
        XCTAssertEqual(results["Thermo-1"]?["result"] as? String, "skipped")
        let failure = try XCTUnwrap(results["Odd-1"]?["error"] as? [String: Any])
        XCTAssertEqual(failure["name"] as? String, "remoteExtendedErrorHwVersionFailure")
        XCTAssertEqual(run.lines.last?["event"] as? String, "summary")

        let written = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let summary = try XCTUnwrap(written["summary"] as? [String: Any])
        XCTAssertEqual(summary["completed"] as? Int, 2)
        XCTAssertEqual(summary["skipped"] as? Int, 1)
        XCTAssertEqual(summary["failed"] as? Int, 1)
        XCTAssertEqual((written["devices"] as? [Any])?.count, 4)
        let remembered = try await rememberedResults(in: state)
        XCTAssertEqual(remembered.keys.sorted(), ["C0:DE:00:00:00:10", "C0:DE:00:00:00:20", "Thermo-1"])
        XCTAssertEqual(remembered["Thermo-1"], "skipped")
    }

    /// The devices with a result in a state file, as `rollout list` and `rollout status` show
    /// the store it is: its one rollout, named for the inventory.
    private func rememberedResults(in state: URL) async throws -> [String: String] {
        let list = try await CLIRunner.run(["rollout", "list", "--store", state.path, "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        let rollouts =
            try XCTUnwrap(
                try JSONSerialization.jsonObject(with: list.stdout) as? [String: Any])["rollouts"]
            as? [[String: Any]]
        XCTAssertEqual(rollouts?.count, 1)
        let name = try XCTUnwrap(rollouts?.first?["rollout"] as? String)
        XCTAssertTrue(name.hasPrefix("crc32:"), name)
        let status = try await CLIRunner.run(["rollout", "status", name, "--store", state.path, "--json"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let devices =
            try XCTUnwrap(
                try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])["devices"]
            as? [[String: Any]]
        XCTAssertEqual(devices?.count, 4, "every inventory device is in the rollout")
        var results: [String: String] = [:]
        for device in devices ?? [] {
            if let name = device["device"] as? String, let result = device["result"] as? String {
                results[name] = result
            }
        }
        return results
    }

    func testARunStartedAgainSkipsWhatItsStateFileHasDone() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let inventory = try inventory(in: folder).path
        let state = folder.appendingPathComponent("state.sqlite")
        let first = try await fleet([inventory, "--state", state.path])
        XCTAssertEqual(first.status, 1, "one device failed")

        let second = try await CLIRunner.run(["fleet", inventory, "--state", state.path, "--json"])
        XCTAssertEqual(second.status, 1, "the failed device is tried again, and fails again")
        XCTAssertFalse(second.stderr.contains("could not write the state file"), second.stderr)
        let results = Dictionary(
            uniqueKeysWithValues: try second.jsonLines().filter { try $0.string("event") == "result" }.map {
                (try $0.string("device"), $0)
            })
        for device in ["C0:DE:00:00:00:10", "C0:DE:00:00:00:20", "Thermo-1"] {
            XCTAssertEqual(try results[device]?.string("result"), "skipped", device)
            XCTAssertEqual(
                try results[device]?.string("reason"), "done in an earlier run (state file)", device)
        }
        XCTAssertEqual(try results["Odd-1"]?.string("result"), "failed")
        let remembered = try await rememberedResults(in: state)
        XCTAssertEqual(remembered.keys.sorted(), ["C0:DE:00:00:00:10", "C0:DE:00:00:00:20", "Thermo-1"])
    }

    func testAFleetStartedAgainAfterRolloutCancelRefusesWithWhatToDo() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let inventory = try inventory(in: folder).path
        let state = folder.appendingPathComponent("state.sqlite")
        _ = try await fleet([inventory, "--state", state.path])
        let list = try await CLIRunner.run(["rollout", "list", "--store", state.path, "--json"])
        let name = try XCTUnwrap(try list.jsonLines().first?.objects("rollouts").first?.string("rollout"))
        let cancel = try await CLIRunner.run(["rollout", "cancel", "--store", state.path, name])
        XCTAssertEqual(cancel.status, 0, cancel.stderr)

        let output = try await CLIRunner.run(["fleet", inventory, "--state", state.path, "--json"])
        XCTAssertEqual(output.status, 64)
        let error = try output.errorObject()
        XCTAssertEqual(try error.string("class"), "usage")
        XCTAssertEqual(
            try error.string("message"),
            "\(state.path): its rollout was cancelled (`rollout cancel`) and is not resumed; "
                + "`rollout status \(name) --store \(state.path)` shows what it recorded; "
                + "delete it to start afresh, or give another --state file")
    }

    func testAnEarlierJSONStateFileIsRefusedWithWhatToDo() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let inventory = try inventory(in: folder).path
        let state = folder.appendingPathComponent("state.json")
        try Data(#"{"inventory": "crc32:00000000:1", "devices": {}}"#.utf8).write(to: state)
        let output = try await CLIRunner.run(["fleet", inventory, "--state", state.path, "--json"])
        XCTAssertEqual(output.status, 64)
        let error =
            try XCTUnwrap(
                try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])["error"]
            as? [String: Any]
        XCTAssertEqual(error?["class"] as? String, "usage")
        XCTAssertEqual(
            error?["message"] as? String,
            "\(state.path) is a JSON state file of an earlier dfu-update, which this one does not read; "
                + "delete it to start afresh, or give another --state file (a path where no file is yet "
                + "starts a new one)")
    }

    /// `--metrics`: the run's series are served while it works, from its events.
    func testMetricsAreServedWhileTheFleetRuns() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let inventory = try FleetFixtures.oneDeviceInventory(in: folder)
        let port = try LoopbackPort.free()
        let fleet = try BackgroundProcess(
            CLIRunner.executableURL, ["fleet", inventory.path, "--metrics", "127.0.0.1:\(port)", "--json"])
        _ = try await fleet.line { $0.contains("\"event\":\"progress\"") }
        let (body, _) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        let text = String(decoding: body, as: UTF8.self)
        XCTAssertTrue(text.contains("dfu_updates_started_total{family=\"secure\"} 1"), text)
        XCTAssertFalse(text.contains("dfu_updates_completed_total"), text)
        let status = try await fleet.wait(within: .seconds(60))
        XCTAssertEqual(status, 0, fleet.standardError)
        XCTAssertEqual(fleet.standardError, "")
    }

    /// A `--metrics` value that is no address is a usage error; an address of another machine's
    /// reach is served with a warning.
    func testMetricsAddressesAreCheckedAndWarnedAbout() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let inventory = try inventory(in: folder).path
        let bad = try await CLIRunner.run(["fleet", inventory, "--metrics", "9464", "--json"])
        XCTAssertEqual(bad.status, 64)
        let error = try XCTUnwrap(try bad.jsonLines().last).object("error")
        XCTAssertEqual(try error.string("class"), "usage")
        let taken = try await LoopbackPort.occupied { port in
            try await CLIRunner.run([
                "fleet", inventory, "--plan", "--metrics", "127.0.0.1:\(port)", "--json",
            ])
        }
        let unavailable = try XCTUnwrap(try taken.jsonLines().last).object("error")
        XCTAssertEqual(try unavailable.string("class"), "metrics_unavailable")
        XCTAssertTrue(try unavailable.string("message").contains("cannot listen there: the port is in use"))
        let open = try await CLIRunner.run(["fleet", inventory, "--plan", "--metrics", "0.0.0.0:0", "--json"])
        XCTAssertEqual(open.status, 0, open.stderr)
        XCTAssertTrue(
            open.stderr.contains("warning: --metrics 0.0.0.0:0 is not a loopback address"), open.stderr)
    }

}
