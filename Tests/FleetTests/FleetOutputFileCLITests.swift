import Foundation
import TestSupport
import XCTest

/// `fleet --report` and `--state` name files written during or after the updates: one that
/// cannot be written, or a state file another fleet runs on, is refused before any device is
/// touched, not found out once they are done.
final class FleetOutputFileCLITests: XCTestCase {
    func testAnUnwritableReportOrStateIsRefusedBeforeAnyDevice() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let inventory = folder.appendingPathComponent("fleet.json")
        try Data(
            #"{"devices": [{"device": "C0:DE:00:00:00:10", "simulate": {"kind": "secure-app"}}]}"#.utf8
        ).write(to: inventory)
        let missing = folder.appendingPathComponent("missing").path
        let pipe = folder.appendingPathComponent("pipe").path
        XCTAssertEqual(mkfifo(pipe, 0o600), 0)
        let cases = [
            (
                ["--state", missing + "/state.sqlite"],
                "--state \(missing)/state.sqlite: the folder \(missing) does not exist"
            ),
            (["--report", folder.path], "--report \(folder.path) is a folder; name a file in it"),
            (["--report", missing + "/report.json"], "the folder \(missing) does not exist"),
            (["--report", pipe], "--report \(pipe) is not a regular file"),
            (["--state", pipe], "--state \(pipe) is not a regular file"),
        ]
        try await assertRefused(inventory, cases)
    }

    /// Runs `fleet INVENTORY --json` with each case's arguments: a usage error (exit 64) whose
    /// message contains the case's text, and the error object alone (no device was planned or
    /// updated).
    private func assertRefused(_ inventory: URL, _ cases: [([String], String)]) async throws {
        for (arguments, message) in cases {
            let run = try await CLIRunner.run(["fleet", inventory.path, "--json"] + arguments)
            XCTAssertEqual(run.status, 64, "\(arguments): \(run.stdoutText)")
            let error = try run.errorObject()
            XCTAssertEqual(try error.string("class"), "usage")
            let said = try error.string("message")
            XCTAssertTrue(said.contains(message), said)
        }
    }

    /// A `--report` or `--state` file that is a file the run reads (the inventory, through a
    /// link too, a package or its init packet) or the other one of the two is refused before any
    /// device is touched, and the file is left as it was.
    func testAFileTheRunReadsIsNeverWrittenOver() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let inventory = try FleetFixtures.oneDeviceInventory(in: folder)
        let link = folder.appendingPathComponent("link.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: inventory.path)
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        let files = try [inventory.path, path("app.bin"), path("app.dat")].map {
            try Data(contentsOf: URL(fileURLWithPath: $0))
        }
        let cases = [
            (["--report", inventory.path], "--report \(inventory.path) is the inventory"),
            (["--report", link], "--report \(link) is the inventory"),
            (["--state", inventory.path], "--state \(inventory.path) is the inventory"),
            (["--state", path("s.sqlite"), "--report", path("s.sqlite")], "is the --state file"),
            (["--report", path("app.bin")], "is a package the inventory names"),
            (["--state", path("app.dat")], "is the init packet of a package the inventory names"),
        ]
        try await assertRefused(inventory, cases)
        let after = try [inventory.path, path("app.bin"), path("app.dat")].map {
            try Data(contentsOf: URL(fileURLWithPath: $0))
        }
        XCTAssertEqual(after, files, "a file the run reads was written over")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("s.sqlite")))
    }

    /// A report that cannot be written after the updates, its folder checked and writable
    /// before them (here a disk that filled meanwhile: a full tmpfs of one page), is told in our
    /// words: what, where, and what to try, not Foundation's.
    func testAReportOnAFullDiskSaysWhatToTry() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let inventory = try FleetFixtures.oneDeviceInventory(in: folder)
        let disk = folder.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        let mounted = try await ProcessRunner.run(
            URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=4k", "tmpfs", disk.path])
        guard mounted.status == 0 else { throw XCTSkip("cannot mount a tmpfs here: \(mounted.stderr)") }
        let report = disk.appendingPathComponent("report.json").path
        // unmounted before the folder is removed, whatever the run did
        let ran: Result<ProcessOutput, any Error>
        do {
            try Data(count: 4096).write(to: disk.appendingPathComponent("filler"))
            ran = .success(try await CLIRunner.run(["fleet", inventory.path, "--report", report, "--json"]))
        } catch {
            ran = .failure(error)
        }
        _ = try await ProcessRunner.run(URL(fileURLWithPath: "/bin/umount"), [disk.path])
        let run = try ran.get()
        XCTAssertEqual(run.status, 1, run.stdoutText + run.stderr)
        let error = try XCTUnwrap(try run.jsonLines().last).object("error")
        XCTAssertEqual(try error.string("class"), "report_not_written")
        XCTAssertEqual(
            try error.string("message"),
            "the fleet ran, but its report was not written: --report \(report) could not be written (no space left on device); make room in \(disk.path) or name a file on another disk"
        )
    }

    /// Two fleets on one state file would update the same devices at once: the second is
    /// refused while the first runs, and runs once it has ended.
    func testASecondFleetOnARunningFleetsStateFileIsRefused() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let inventory = try FleetFixtures.oneDeviceInventory(in: folder)
        let state = folder.appendingPathComponent("state.sqlite").path
        let first = try BackgroundProcess(
            CLIRunner.executableURL, ["fleet", inventory.path, "--state", state, "--json"])
        _ = try await first.line { $0.contains("\"event\":\"progress\"") }
        // a plan only reads the file: it runs beside the fleet
        let plan = try await CLIRunner.run(["fleet", inventory.path, "--state", state, "--plan", "--json"])
        XCTAssertEqual(plan.status, 0, plan.stdoutText + plan.stderr)
        let second = try await CLIRunner.run(["fleet", inventory.path, "--state", state, "--json"])
        XCTAssertEqual(second.status, 64, second.stdoutText)
        XCTAssertEqual(
            try second.errorObject().string("message"),
            "\(state) is the state file of another fleet running now; wait for it to end, or give another --state file"
        )
        let firstStatus = try await first.wait(within: .seconds(60))
        XCTAssertEqual(firstStatus, 0, first.standardError)
        let again = try await CLIRunner.run(["fleet", inventory.path, "--state", state, "--json"])
        XCTAssertEqual(again.status, 0, again.stdoutText + again.stderr)
    }

    /// `--plan` writes nothing: neither the state file nor its lock file.
    func testAPlanLeavesNoFileBehind() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let inventory = try FleetFixtures.oneDeviceInventory(in: folder, size: 4096, seed: 3)
        let state = folder.appendingPathComponent("state.sqlite")
        let plan = try await CLIRunner.run([
            "fleet", inventory.path, "--state", state.path, "--plan", "--json",
        ])
        XCTAssertEqual(plan.status, 0, plan.stdoutText + plan.stderr)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(left, ["app.bin", "app.dat", "fleet.json"])
    }
}
