import Foundation
import TestSupport
import XCTest

/// `dfu-sim`'s mistakes as docs/dfu-sim.md promises them: one error object with `--json`, the
/// contract's exit code, and the device's options checked before any Bluetooth is touched.
final class DFUSimCLITests: XCTestCase {
    /// No system bus: whatever reaches for Bluetooth fails with `bluetooth_unavailable`.
    private let noBus = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/dfu-sim-test"]

    private func run(_ arguments: [String]) async throws -> ProcessOutput {
        try await ProcessRunner.run(
            CLIRunner.executable(named: "dfu-sim"), arguments, timeout: .seconds(30), environment: noBus)
    }

    func testABadOptionIsOneErrorObject() async throws {
        for arguments in [
            ["--simulate", "toaster"], ["--simulate", "secure-app", "--sim-fault", "bogus"],
            ["--simulate", "secure-app", "--sim-mtu", "99999999999999999999"],
        ] {
            let output = try await run(arguments + ["--json"])
            XCTAssertEqual(output.status, 64, "\(arguments)")
            let error = try output.errorObject()
            XCTAssertEqual(try error.string("class"), "usage", "\(arguments)")
            XCTAssertTrue(try error.string("message").hasSuffix("; see --help"), "\(arguments)")
            XCTAssertEqual(output.stderr, "", "\(arguments): no block of help")
        }
        let kind = try await run(["--simulate", "toaster", "--json"])
        XCTAssertTrue(try kind.errorObject().string("message").contains("following: secure, secure-app,"))
    }

    /// An unknown option is the error, not the missing --simulate it may have been meant for.
    func testAnUnknownOptionIsTheErrorBeforeTheMissingKind() async throws {
        let output = try await run(["--bogus", "--json"])
        XCTAssertEqual(output.status, 64, output.stdoutText)
        XCTAssertEqual(try output.errorObject().string("message"), "Unknown option '--bogus'; see --help")
        let typo = try await run(["--simulte", "secure", "--json"])
        XCTAssertEqual(
            try typo.errorObject().string("message"),
            "Unknown option '--simulte' (did you mean '--simulate'?); see --help")
    }

    /// A negative number is the value, not an option: its own check answers, naming the range
    /// (not ArgumentParser's "Missing value"), in dfu-sim and in dfu-update alike.
    func testANegativeNumberIsCheckedAsAValue() async throws {
        let factor = try await run(["--simulate", "secure-app", "--sim-real-time-factor", "-1", "--json"])
        XCTAssertEqual(factor.status, 64, factor.stdoutText)
        XCTAssertEqual(
            try factor.errorObject().string("message"), "--sim-real-time-factor -1.0 is outside 0 … 10")
        let erase = try await CLIRunner.run([
            "scan", "--simulate", "secure-app", "--sim-page-erase-ms", "-5", "--json",
        ])
        XCTAssertEqual(erase.status, 64, erase.stdoutText)
        let message = try erase.errorObject().string("message")
        XCTAssertTrue(message.hasPrefix("--sim-page-erase-ms -5"), message)
    }

    /// A device that cannot be configured is the user's mistake, told before Bluetooth is: not
    /// `bluetooth_unavailable` on a machine without it, nor after they set Bluetooth up.
    func testTheDeviceIsCheckedBeforeBluetooth() async throws {
        let mtu = try await run(["--simulate", "secure-app", "--sim-mtu", "0", "--json"])
        XCTAssertEqual(mtu.status, 64, mtu.stdoutText)
        XCTAssertEqual(try mtu.errorObject().string("message"), "--sim-mtu 0 is outside 23…517")
        let key = try await run([
            "--simulate", "secure", "--sim-public-key", "/nonexistent/key.pem", "--json",
        ])
        XCTAssertEqual(key.status, 66, key.stdoutText)
        XCTAssertEqual(try key.errorObject().string("class"), "file_not_found")
    }
}
