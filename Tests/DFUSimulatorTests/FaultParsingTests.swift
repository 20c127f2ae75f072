import DFUSimulator
import XCTest

final class FaultParsingTests: XCTestCase {
    func testParsesEveryFault() throws {
        XCTAssertEqual(try SimulatedFault(parsing: "disconnect-at=5000"), .disconnectAt(bytes: 5000))
        XCTAssertEqual(try SimulatedFault(parsing: "drop-notification=3"), .dropNotification(3))
        XCTAssertEqual(try SimulatedFault(parsing: "crc-error=2"), .crcError(2))
        XCTAssertEqual(try SimulatedFault(parsing: "reject-connect=1"), .rejectConnect(1))
        XCTAssertEqual(try SimulatedFault(parsing: "slow-flash=400"), .slowFlash(.milliseconds(400)))
        XCTAssertEqual(try SimulatedFault(parsing: "slow-flash=400").description, "slow-flash=400")
    }

    func testRejectsMalformedFaults() {
        for spec in [
            "disconnect-at", "crc-error=0", "drop-notification=x", "explode=1", "=3", "reject-connect=-1",
        ] {
            XCTAssertThrowsError(try SimulatedFault(parsing: spec), spec)
        }
    }

    func testKindNamesMatchTheContract() {
        XCTAssertEqual(
            SimulatedDeviceKind.names, ["secure", "secure-app", "secure-app-bonded", "legacy", "legacy-app"])
    }
}
