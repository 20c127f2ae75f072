import Foundation
import TestSupport
import XCTest

/// `dfu-update flash --json` against the built-in simulated device, checked line by line
/// against docs/cli-contract.md ("flash … --json", "Simulated devices").
final class FlashCLITests: XCTestCase {
    /// The members each event must have (the contract lets fields be added, never dropped).
    private static let members: [String: Set<String>] = [
        "state": ["event", "device", "state"],
        "version": ["event", "device", "installed", "package", "decision"],
        "progress": [
            "event", "device", "part", "total_parts", "percent", "bytes_sent", "part_bytes",
            "speed_bytes_per_second", "avg_speed_bytes_per_second",
        ],
        "simulator": ["event", "device", "mode", "images", "activations"],
        "result": ["event", "device", "result", "error", "bytes_sent", "duration_seconds", "retries"],
    ]
    private static let states: Set<String> = [
        "connecting", "starting", "enabling_dfu_mode", "uploading", "validating", "disconnecting",
        "completed",
        "aborted",
    ]

    private func flash(_ fixture: String, _ extra: [String]) async throws -> ProcessOutput {
        try await CLIRunner.run(["flash", try Fixtures.url(fixture).path, "--json"] + extra)
    }

    /// Checks every line against the contract and returns the `result` event (the last line).
    private func checkEvents(_ run: ProcessOutput, device: String) throws -> JSONObject {
        let lines = try run.jsonLines()
        XCTAssertFalse(lines.isEmpty, run.stderr)
        for line in lines {
            let event = try line.string("event")
            let required = try XCTUnwrap(Self.members[event], "event \(event) is not in the contract")
            XCTAssertTrue(
                required.isSubset(of: line.values.keys),
                "\(event) lacks \(required.subtracting(line.values.keys))")
            XCTAssertEqual(try line.string("device"), device)
            switch event {
            case "state":
                let state = try line.string("state")
                XCTAssertTrue(Self.states.contains(state), state)
            case "version":
                XCTAssertTrue(["update", "skip", "forced", "unknown"].contains(try line.string("decision")))
            case "progress":
                let percent = try line.int("percent")
                XCTAssertTrue((0...100).contains(percent), "\(percent)")
                XCTAssertLessThanOrEqual(try line.int("bytes_sent"), try line.int("part_bytes"))
                XCTAssertLessThanOrEqual(try line.int("part"), try line.int("total_parts"))
                XCTAssertGreaterThanOrEqual(try line.double("avg_speed_bytes_per_second"), 0)
            default:
                break
            }
        }
        let result = try XCTUnwrap(lines.last)
        XCTAssertEqual(try result.string("event"), "result")
        XCTAssertEqual(lines.filter { (try? $0.string("event")) == "result" }.count, 1)
        return result
    }

    func testCompletedUpdateEventsFollowTheContract() async throws {
        let run = try await flash("secure/secure_app_4096_bin_signed.zip", ["--simulate", "secure-app"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let result = try checkEvents(run, device: "C0:DE:00:00:00:10")
        XCTAssertEqual(try result.string("result"), "completed")
        XCTAssertTrue(result.isNull("error"))
        XCTAssertGreaterThanOrEqual(try result.int("bytes_sent"), 4096)
        XCTAssertGreaterThan(try result.double("duration_seconds"), 0)
        XCTAssertEqual(try result.int("retries"), 0)
        let lines = try run.jsonLines()
        let simulator = try XCTUnwrap(lines.dropLast().last)
        XCTAssertEqual(try simulator.string("event"), "simulator")
        XCTAssertEqual(try simulator.string("mode"), "application")
        XCTAssertEqual(try simulator.object("images").object("application").int("size"), 4096)
        // Numbers keep their precision: the old output rounded every one to a tenth.
        let precise = try NSRegularExpression(pattern: #""avg_speed_bytes_per_second":[0-9]+\.[0-9]{2,}"#)
        let text = run.stdoutText
        XCTAssertNotNil(precise.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), text)
    }

    func testResumedUpdateCountsItsRetry() async throws {
        let run = try await flash(
            "secure/secure_app_12k_hex_signed_version_string.zip",
            [
                "--simulate", "secure-app", "--device", "C0:DE:00:00:00:42", "--sim-fault",
                "disconnect-at=6000",
            ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let result = try checkEvents(run, device: "C0:DE:00:00:00:42")
        XCTAssertEqual(try result.string("result"), "completed")
        XCTAssertEqual(try result.int("retries"), 1)
    }

    func testFailedUpdateReportsTheErrorInItsResult() async throws {
        let run = try await flash(
            "secure/secure_app_4096_bin_signed.zip",
            ["--simulate", "secure-app", "--sim-fault", "reject-connect=10"])
        XCTAssertEqual(run.status, 1, run.stderr)
        let result = try checkEvents(run, device: "C0:DE:00:00:00:10")
        XCTAssertEqual(try result.string("result"), "failed")
        let error = try result.object("error")
        XCTAssertEqual(try error.string("name"), "failedToConnect")
        XCTAssertGreaterThan(try error.int("code"), 0)
        let message = try error.string("message")
        XCTAssertTrue(message.contains("C0:DE:00:00:00:10"), message)
    }

    /// The README's first command: the simulated bootloader drops packets while its flash is
    /// busy, which the engine sends again as it learns the device's pace; a clean run reports
    /// no resent bytes to a person, and its durations as simulated link time.
    func testACleanRunResendsOnlyForTheDevicesPace() async throws {
        let package = try Fixtures.url("secure/secure_app_12k_hex_signed_version_string.zip").path
        let json = try await CLIRunner.run(["flash", package, "--simulate", "secure-app", "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let result = try checkEvents(json, device: "C0:DE:00:00:00:10")
        XCTAssertEqual(try result.int("bytes_resent_for_pace"), try result.int("bytes_resent"))
        let human = try await CLIRunner.run(["flash", package, "--simulate", "secure-app"])
        XCTAssertEqual(human.status, 0, human.stderr)
        let last = String(human.stderr.split(separator: "\n").last ?? "")
        XCTAssertTrue(last.hasPrefix("updated C0:DE:00:00:00:10: "), last)
        XCTAssertFalse(last.contains("resent"), last)
        XCTAssertTrue(last.hasSuffix(" of simulated link time"), last)
        // a checksum the device got wrong is a fault: its object sent again is counted
        let faulty = try await CLIRunner.run(
            ["flash", package, "--simulate", "secure-app", "--sim-fault", "crc-error=3", "--json"])
        XCTAssertEqual(faulty.status, 0, faulty.stderr)
        let faultyResult = try checkEvents(faulty, device: "C0:DE:00:00:00:10")
        XCTAssertGreaterThan(
            try faultyResult.int("bytes_resent"), try faultyResult.int("bytes_resent_for_pace"))
    }

    /// A person reads (on stderr) whether the device is as new as the package or newer.
    func testHumanOutputSaysTheDeviceRunsANewerVersion() async throws {
        let package = try Fixtures.url("secure/secure_app_4096_bin_signed.zip").path
        for (installed, says) in [("99.0.0", "the device runs a newer version"), ("1.0.0", "updating")] {
            let run = try await CLIRunner.run(
                ["flash", package, "--simulate", "secure-app", "--sim-firmware-version", installed])
            XCTAssertEqual(run.status, 0, run.stderr)
            let line = try XCTUnwrap(
                run.stderr.split(separator: "\n").first { $0.hasPrefix("installed \(installed)") }, run.stderr
            )
            XCTAssertTrue(line.contains(says), String(line))
        }
    }
}
