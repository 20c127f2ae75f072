import Foundation
import TestSupport
import XCTest

/// The updater through D-Bus on this host: `dfu-bench host` runs a private dbus-daemon, dfu-sim
/// standing in for bluetoothd, a Secure DFU through `BlueZCentral` and the same image from the
/// bench's plain client, and fails unless the device ends up holding the image each time.
final class StandInTests: XCTestCase {
    func testASecureUpdateThroughTheBluetoothdStandInDeliversTheImage() async throws {
        let output = try await ProcessRunner.run(
            CLIRunner.executable(named: "dfu-bench"),
            ["host", "--sizes", "20480", "--repeats", "1", "--json"], timeout: .seconds(60))
        XCTAssertEqual(output.status, 0, output.stderr)
        let updates = try output.jsonLines().filter { try $0.string("benchmark") == "host_dfu" }
        XCTAssertEqual(updates.count, 1, output.stdoutText)
        let update = try XCTUnwrap(updates.first)
        XCTAssertEqual(try update.int("image_bytes"), 20480)
        XCTAssertEqual(try update.int("retries"), 0)
        // the plain client, the updater's CPU reference, also delivers the image (checked by the bench)
        let plain = try output.jsonLines().filter { try $0.string("benchmark") == "host_plain_client" }
        XCTAssertEqual(plain.count, 1, output.stdoutText)
    }
}
