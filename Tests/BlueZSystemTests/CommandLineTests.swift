import Foundation
import XCTest

/// The built `dfu-update scan` and `info` against the test peripheral.
final class CommandLineTests: SystemTestCase {
    private func dfuUpdate(_ arguments: [String]) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try await SystemTestEnvironment.run(SystemTestEnvironment.dfuUpdateExecutable, arguments)
    }

    private func objects(_ jsonLines: String) throws -> [[String: Any]] {
        try jsonLines.split(separator: "\n").map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
    }

    func testScanListsThePeripheralOnceAsSecureDFU() async throws {
        let result = try await dfuUpdate(["scan", "--adapter", "hci0", "--timeout", "4", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let devices = try objects(result.stdout)
        let ours = devices.filter { $0["address"] as? String == peripheral.address.description }
        XCTAssertEqual(ours.count, 1, result.stdout)
        let device = try XCTUnwrap(ours.first)
        XCTAssertEqual(device["event"] as? String, "device")
        XCTAssertEqual(device["name"] as? String, TestPeripheral.name)
        XCTAssertEqual(device["address_type"] as? String, "public")
        XCTAssertEqual(device["dfu"] as? String, "secure")
        XCTAssertEqual(device["services"] as? [String], [TestPeripheral.service.uuidString])
        XCTAssertNotNil(device["rssi"] as? Int)
    }

    func testInfoReadsTheFirmwareRevisionAndDetectsTheBootloader() async throws {
        let result = try await dfuUpdate([
            "info", "--device", peripheral.address.description, "--adapter", "hci0", "--json",
        ])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let info = try XCTUnwrap(try objects(result.stdout).first, result.stdout)
        XCTAssertEqual(info["address"] as? String, peripheral.address.description)
        XCTAssertEqual(info["firmware_revision"] as? String, TestPeripheral.firmwareVersion)
        XCTAssertTrue(info["hardware_revision"] is NSNull)
        XCTAssertTrue(info["software_revision"] is NSNull)
        let services = try XCTUnwrap(info["services"] as? [String])
        XCTAssertTrue(services.contains(TestPeripheral.service.uuidString), "\(services)")
        let dfu = try XCTUnwrap(info["dfu"] as? [String: Any])
        // control point + packet in 0xFE59: a secure bootloader
        XCTAssertEqual(dfu["protocol"] as? String, "secure")
        XCTAssertEqual(dfu["mode"] as? String, "bootloader")
        XCTAssertTrue(dfu["buttonless"] is NSNull)
        XCTAssertTrue(dfu["legacy_dfu_version"] is NSNull)
    }

    func testInfoOnAnAbsentDeviceExitsWithOne() async throws {
        let result = try await dfuUpdate([
            "info", "--device", "C0:DE:00:00:00:99", "--adapter", "hci0", "--timeout", "3", "--json",
        ])
        XCTAssertEqual(result.status, 1, result.stdout)
        let error = try XCTUnwrap(try objects(result.stdout).first?["error"] as? [String: Any])
        XCTAssertEqual(error["class"] as? String, "connection_failed")
    }

    func testAMissingAdapterExitsWith69() async throws {
        let result = try await dfuUpdate(["scan", "--adapter", "hci7", "--timeout", "1", "--json"])
        XCTAssertEqual(result.status, 69)
        let error = try XCTUnwrap(try objects(result.stdout).first?["error"] as? [String: Any])
        XCTAssertEqual(error["class"] as? String, "bluetooth_unavailable")
        XCTAssertTrue((error["message"] as? String ?? "").contains("hci7"))
    }
}
