import DFUFleet
import Foundation
import TestSupport
import XCTest

/// What a person sees on a terminal, driven in a pseudo-terminal (tmux): after a clean run of
/// `flash` and of a fleet of six, the screen holds no warning, no stale progress or live lines and
/// no leftover characters of a longer line.
final class TerminalScreenTests: XCTestCase {
    private let repository = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
    private var dfuUpdate: String { CLIRunner.executableURL.path }

    /// The README's first command.
    func testAFlashLeavesOnlyItsLines() async throws {
        let (screen, status) = try await TerminalScreen.run(
            "'\(dfuUpdate)' flash Firmware/secure_app.zip --simulate secure-app", in: repository)
        let text = screen.joined(separator: "\n")
        XCTAssertEqual(status, 0, text)
        XCTAssertFalse(text.lowercased().contains("warning"), text)
        XCTAssertEqual(screen.filter { $0.hasPrefix("part 1/1 [") }.count, 1, "stale bars:\n\(text)")
        XCTAssertTrue(screen.contains { $0.hasPrefix("part 1/1 [") && $0.contains("100%") }, text)
        XCTAssertFalse(text.contains("ETA"), "a bar was left mid-way:\n\(text)")
        for state in ["Connecting…", "Starting…", "Validating…"] {
            XCTAssertEqual(screen.filter { $0 == state }.count, 1, "\(state):\n\(text)")
        }
        XCTAssertTrue(screen.last?.hasPrefix("updated C0:DE:00:00:00:10: ") == true, text)
        XCTAssertEqual(screen.filter { $0.trimmingCharacters(in: .whitespaces).isEmpty }.count, 0, text)
    }

    /// At 40 columns the bar narrows: the finished bar is one line, not wrapped.
    func testAFlashFitsANarrowTerminal() async throws {
        let (screen, status) = try await TerminalScreen.run(
            "'\(dfuUpdate)' flash Firmware/secure_app.zip --simulate secure-app", in: repository, columns: 40)
        let text = screen.joined(separator: "\n")
        XCTAssertEqual(status, 0, text)
        XCTAssertEqual(screen.filter { $0.hasPrefix("part 1/1 [") && $0.contains("100%") }.count, 1, text)
    }

    /// Ctrl-C in the middle of a part takes the bar away: no partial bar is left under the `^C`.
    func testAnInterruptedFlashLeavesNoBar() async throws {
        let (screen, status) = try await TerminalScreen.run(
            "'\(dfuUpdate)' flash Firmware/secure_app.zip --simulate secure-app --sim-real-time-factor 1",
            in: repository, interruptOn: "part 1/1 [")
        let text = screen.joined(separator: "\n")
        XCTAssertEqual(status, 130, text)
        XCTAssertFalse(screen.contains { $0.contains("part 1/1 [") }, text)
        XCTAssertTrue(screen.contains { $0.hasPrefix("aborted; ") }, text)
    }

    /// At 80 columns, devices named by address: each row of the table is one line (its DETAIL
    /// cut, not wrapped), and a failure's line names its device once.
    func testAFleetFitsEightyColumns() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let package = repository.appendingPathComponent("Firmware/secure_app.zip").path
        let json = """
            {"defaults": {"package": "\(package)"},
             "devices": [
              {"device": "C0:DE:00:00:00:20", "simulate": {"kind": "secure-app", "firmware_version": "3.0.0"}},
              {"device": "C0:DE:00:00:00:22", "simulate": {"kind": "secure-app", "firmware_version": "1.0.0",
                                                           "faults": ["reject-connect=1000"]}}
             ]}
            """
        try Data(json.utf8).write(to: folder.appendingPathComponent("fleet.json"))
        let (screen, status) = try await TerminalScreen.run(
            "'\(dfuUpdate)' fleet fleet.json --device-retries 0", in: folder, columns: 80)
        let text = screen.joined(separator: "\n")
        XCTAssertEqual(status, 1, text)
        let header = try XCTUnwrap(
            screen.firstIndex { $0.hasPrefix("DEVICE ") && $0.contains("RESULT") }, text)
        let rows = screen[(header + 1)...].prefix { !$0.isEmpty }
        XCTAssertEqual(rows.map { String($0.prefix(17)) }, ["C0:DE:00:00:00:20", "C0:DE:00:00:00:22"], text)
        let failure = try XCTUnwrap(screen.first { $0.hasPrefix("C0:DE:00:00:00:22: failed") }, text)
        XCTAssertEqual(failure.components(separatedBy: "C0:DE:00:00:00:22").count, 2, failure)
        XCTAssertTrue(screen.last?.hasPrefix("2 devices: 0 completed, 1 skipped, 1 failed") == true, text)
    }

    func testAFleetOfSixLeavesItsResultsAndTheTable() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let package = repository.appendingPathComponent("Firmware/secure_app.zip").path
        let json = """
            {"defaults": {"package": "\(package)"},
             "devices": [
              {"device": "sim-1", "simulate": {"kind": "secure-app", "firmware_version": "1.0.0"}},
              {"device": "sim-2", "simulate": {"kind": "secure-app", "firmware_version": "1.0.0",
                                               "faults": ["disconnect-at=5000"]}},
              {"device": "sim-3", "simulate": {"kind": "secure-app-bonded", "firmware_version": "1.0.0"}},
              {"device": "sim-4", "simulate": {"kind": "secure", "faults": ["drop-final-answer=1"]}},
              {"device": "sim-5", "simulate": {"kind": "secure-app", "firmware_version": "3.0.0"}},
              {"device": "sim-6", "simulate": {"kind": "secure-app", "firmware_version": "1.0.0",
                                               "faults": ["slow-flash=300"]}}
             ]}
            """
        try Data(json.utf8).write(to: folder.appendingPathComponent("fleet.json"))
        let (screen, status) = try await TerminalScreen.run("'\(dfuUpdate)' fleet fleet.json", in: folder)
        let text = screen.joined(separator: "\n")
        XCTAssertEqual(status, 0, text)
        XCTAssertFalse(text.lowercased().contains("warning"), text)
        XCTAssertFalse(text.contains("active,"), "the live view was left on screen:\n\(text)")
        for device in ["sim-1", "sim-2", "sim-3", "sim-4", "sim-6"] {
            XCTAssertEqual(screen.filter { $0 == "\(device): completed — now runs 2.7.31" }.count, 1, text)
        }
        XCTAssertEqual(screen.filter { $0 == "sim-5: skipped — up to date" }.count, 1, text)
        XCTAssertEqual(screen.filter { $0.hasPrefix("DEVICE  RESULT") }.count, 1, text)
        XCTAssertTrue(screen.last?.hasPrefix("6 devices: 5 completed, 1 skipped, 0 failed") == true, text)
    }
}
