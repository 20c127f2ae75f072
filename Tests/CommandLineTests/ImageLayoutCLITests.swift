import Foundation
import TestSupport
import XCTest

/// `info` and `fleet --plan` show an SMP device's image layout as its list shows it: numbered
/// entries (an nRF5340 built for simultaneous updates) or none, which a single-image device and
/// an nRF5340 with one image pair share until a package decides (docs/mcumgr.md, "One image pair").
final class ImageLayoutCLITests: XCTestCase {
    private let repository = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
    private let device = ["--device", "C0:DE:00:00:00:10"]

    func testInfoTellsNumberedEntriesFromUnnumberedOnes() async throws {
        let simultaneous = try await CLIRunner.run(
            [
                "info", "--simulate", "smp-app", "--sim-mcuboot-mode", "overwrite-only", "--sim-network-core",
                "--json",
            ]
                + device)
        XCTAssertEqual(simultaneous.status, 0, simultaneous.stderr)
        let numbered = try XCTUnwrap(try simultaneous.jsonLines().first).object("images")
        XCTAssertTrue(try numbered.bool("numbered"))
        let onePair = try await CLIRunner.run(
            ["info", "--simulate", "smp-app", "--sim-network-core-one-pair", "--json"] + device)
        XCTAssertEqual(onePair.status, 0, onePair.stderr)
        let unnumbered = try XCTUnwrap(try onePair.jsonLines().first).object("images")
        XCTAssertFalse(try unnumbered.bool("numbered"))
        XCTAssertEqual(try unnumbered.int("listed"), 1)
        let text = try await CLIRunner.run(["info", "--simulate", "smp-app"] + device)
        XCTAssertTrue(
            text.stdoutText.contains(
                "images: 1 image listed, not numbered: a single-image device or an nRF5340 with one image pair"
            ),
            text.stdoutText)
        let secure = try await CLIRunner.run(["info", "--simulate", "secure-app", "--json"] + device)
        XCTAssertTrue(try XCTUnwrap(try secure.jsonLines().first).isNull("images"))
    }

    func testPlanNamesTheTwoCyclesOfOneImagePair() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-layout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = repository.appendingPathComponent("Firmware/nrf5340_onepair_dfu_application.zip").path
        let json = """
            {"defaults": {"package": "\(package)"},
             "devices": [{"device": "C0:DE:00:00:00:10", "simulate": {"kind": "smp-app", "network_core_one_pair": true}}]}
            """
        let inventory = folder.appendingPathComponent("fleet.json")
        try Data(json.utf8).write(to: inventory)
        let run = try await CLIRunner.run(["fleet", inventory.path, "--plan", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let plan = try XCTUnwrap(
            try run.jsonLines().first { try $0.string("event") == "plan" }, run.stdoutText)
        XCTAssertEqual(
            try plan.string("image_layout"), "1 image listed, not numbered: one image pair: two cycles")
        let text = try await CLIRunner.run(["fleet", inventory.path, "--plan"])
        XCTAssertTrue(text.stdoutText.contains("one image pair: two cycles"), text.stdoutText)
    }
}
