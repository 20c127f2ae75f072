import Foundation
import TestSupport
import XCTest

/// `info` and `scan` run without Bluetooth against the in-process simulated device, as `flash`
/// does (README: every command but `adapters` runs on a machine without Bluetooth).
final class SimulatedProbeCLITests: XCTestCase {
    func testInfoReadsTheSimulatedDevice() async throws {
        let run = try await CLIRunner.run(
            ["info", "--simulate", "smp-app", "--device", "C0:DE:00:00:00:10", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let object = try XCTUnwrap(try run.jsonLines().first)
        XCTAssertEqual(try object.string("address"), "C0:DE:00:00:00:10")
        XCTAssertEqual(try object.string("firmware_revision"), "1.0.0")
        XCTAssertEqual(try object.object("dfu").string("protocol"), "smp")
        // a simulated device holds no bond of bluetoothd's: nothing to tell
        XCTAssertTrue(object.isNull("paired"), "\(object.values)")
        // an address in lower case names the same device, printed as BlueZ prints it
        let lower = try await CLIRunner.run(
            ["info", "--simulate", "smp-app", "--device", "c0:de:00:00:00:10", "--json"])
        XCTAssertEqual(lower.status, 0, lower.stderr)
        XCTAssertEqual(try XCTUnwrap(try lower.jsonLines().first).string("address"), "C0:DE:00:00:00:10")
        // by name, as flash finds a simulated device by name
        let named = try await CLIRunner.run([
            "info", "--simulate", "secure-app", "--device", "Thermo", "--json",
        ])
        XCTAssertEqual(named.status, 0, named.stderr)
        XCTAssertEqual(try XCTUnwrap(try named.jsonLines().first).string("name"), "Thermo")
    }

    /// `info` names an SMP device's bootloader and mode when the device tells them.
    func testInfoNamesTheBootloaderAndItsMode() async throws {
        let run = try await CLIRunner.run([
            "info", "--simulate", "smp-app", "--sim-mcuboot-mode", "swap-using-offset", "--device",
            "C0:DE:00:00:00:10", "--json",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let bootloader = try XCTUnwrap(try run.jsonLines().first).object("bootloader")
        XCTAssertEqual(try bootloader.string("name"), "MCUboot")
        XCTAssertEqual(try bootloader.string("mode"), "swap using offset")
        let text = try await CLIRunner.run([
            "info", "--simulate", "smp-app", "--sim-mcuboot-mode", "swap-using-move", "--device",
            "C0:DE:00:00:00:10",
        ])
        XCTAssertTrue(text.stdoutText.contains("bootloader: MCUboot, swap using move"), text.stdoutText)
    }

    func testScanFindsTheSimulatedDevice() async throws {
        let run = try await CLIRunner.run(["scan", "--simulate", "legacy-app", "--timeout", "0.5", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = try run.jsonLines()
        XCTAssertEqual(lines.count, 1, run.stdoutText)
        XCTAssertEqual(try lines[0].string("address"), "C0:DE:00:00:00:10")
        XCTAssertEqual(try lines[0].string("dfu"), "legacy")
    }

    func testSimulatorOptionsNeedSimulate() async throws {
        let run = try await CLIRunner.run(["scan", "--sim-mtu", "100", "--json"])
        XCTAssertEqual(run.status, 64, run.stderr)
        XCTAssertEqual(try run.errorObject().string("class"), "usage")
    }
}
