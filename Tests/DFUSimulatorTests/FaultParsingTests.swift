import DFUSimulator
import GATT
import NordicDFU
import TestSupport
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

final class ConfigurationOptionsTests: XCTestCase {
    let address = BluetoothAddress("C0:DE:00:00:00:10")!

    func testBuildsAConfigurationFromTheContractsOptions() throws {
        let key = try Fixtures.file("keys/dfu_test_key_public_hex.txt").path
        let configuration = try SimulatedDeviceConfiguration(
            kind: "legacy-app", address: address, dfuVersion: "0.6", firmwareVersion: "2.0.1",
            hardwareVersion: "53",
            softDeviceID: "0x88", publicKeyFile: key, mtu: 185, faults: ["crc-error=2", "slow-flash=300"])
        XCTAssertEqual(configuration.kind, .legacyApp)
        XCTAssertEqual(configuration.legacyDFUVersion, LegacyDFUVersion(major: 0, minor: 6))
        XCTAssertEqual(configuration.firmwareVersion, "2.0.1")
        XCTAssertEqual(configuration.hardwareVersion, 53)
        XCTAssertEqual(configuration.softDeviceID, 0x88)
        XCTAssertNotNil(configuration.publicKey)
        XCTAssertEqual(configuration.mtu, 185)
        XCTAssertEqual(configuration.faults, [.crcError(2), .slowFlash(.milliseconds(300))])
    }

    func testRejectsBadOptionsNamingThem() {
        let cases: [(String, () throws -> SimulatedDeviceConfiguration)] = [
            ("--simulate", { try SimulatedDeviceConfiguration(kind: "nordic", address: self.address) }),
            (
                "--sim-dfu-version",
                { try SimulatedDeviceConfiguration(kind: "legacy", address: self.address, dfuVersion: "0.9") }
            ),
            (
                "--sim-sd-id",
                {
                    try SimulatedDeviceConfiguration(
                        kind: "secure", address: self.address, softDeviceID: "0x1FFFF")
                }
            ),
            (
                "--sim-hw-version",
                {
                    try SimulatedDeviceConfiguration(
                        kind: "secure", address: self.address, hardwareVersion: "x")
                }
            ),
            (
                "--sim-public-key",
                {
                    try SimulatedDeviceConfiguration(
                        kind: "secure", address: self.address, publicKeyFile: "/nonexistent")
                }
            ),
            (
                "--sim-mtu",
                { try SimulatedDeviceConfiguration(kind: "secure", address: self.address, mtu: 10) }
            ),
            (
                "fault",
                {
                    try SimulatedDeviceConfiguration(
                        kind: "secure", address: self.address, faults: ["boom=1"])
                }
            ),
        ]
        for (option, make) in cases {
            XCTAssertThrowsError(try make(), option) { error in
                XCTAssertTrue("\(error)".contains(option), "\(error)")
            }
        }
    }
}
