import Crypto
import DFUFleet
import DFUSimulator
import Foundation
import GATT
import NordicDFU
import SimulatedFleet
import SimulatorCommandLine
import XCTest

final class FaultArgumentTests: XCTestCase {
    func testReadsEveryFault() throws {
        XCTAssertEqual(SimulatedFault(argument: "disconnect-at=5000"), .disconnectAt(bytes: 5000))
        XCTAssertEqual(SimulatedFault(argument: "disconnect-at=0"), .disconnectAt(bytes: 0))
        XCTAssertEqual(SimulatedFault(argument: "drop-notification=3"), .dropNotification(3))
        XCTAssertEqual(SimulatedFault(argument: "crc-error=2"), .crcError(2))
        XCTAssertEqual(SimulatedFault(argument: "reject-connect=1"), .rejectConnect(1))
        XCTAssertEqual(SimulatedFault(argument: "slow-flash=400"), .slowFlash(.milliseconds(400)))
        XCTAssertEqual(SimulatedFault(argument: "slow-flash=400")?.description, "slow-flash=400")
        XCTAssertNil(SimulatedFault.problem(with: "crc-error=2"))
    }

    func testRejectsMalformedFaultsSayingWhy() {
        let cases = [
            ("disconnect-at", "NAME=NUMBER"), ("crc-error=0", "at least 1"),
            ("drop-notification=x", "NAME=NUMBER"),
            ("explode=1", "unknown fault 'explode'"), ("=3", "NAME=NUMBER"),
            ("reject-connect=-1", "at least 1"),
        ]
        for (spec, reason) in cases {
            XCTAssertNil(SimulatedFault(argument: spec), spec)
            let problem = SimulatedFault.problem(with: spec) ?? ""
            XCTAssertTrue(problem.contains(reason), "\(spec): \(problem)")
        }
    }

    func testKindNamesMatchTheContract() {
        XCTAssertEqual(
            SimulatedDeviceKind.names,
            ["secure", "secure-app", "secure-app-bonded", "legacy", "legacy-app", "smp-app"])
        XCTAssertEqual(SimulatedDeviceKind.allValueStrings, SimulatedDeviceKind.names)
    }

    func testNumbersAreDecimalOrHexadecimal() {
        XCTAssertEqual(NumberArgument<UInt16>(argument: "0xB6")?.value, 0xB6)
        XCTAssertEqual(NumberArgument<UInt16>(argument: "0Xb6")?.value, 0xB6)
        XCTAssertEqual(NumberArgument<UInt32>(argument: "52")?.value, 52)
        XCTAssertNil(NumberArgument<UInt16>(argument: "0x1FFFF"))
        XCTAssertNil(NumberArgument<UInt32>(argument: "x"))
        XCTAssertEqual(LegacyDFUVersion(argument: "0.6"), LegacyDFUVersion(major: 0, minor: 6))
        XCTAssertNil(LegacyDFUVersion(argument: "0.9"))
        XCTAssertNil(LegacyDFUVersion(argument: "1.5"))
    }
}

final class SimulationOptionsTests: XCTestCase {
    let address = BluetoothAddress.simulatedDevice

    private func keyFile() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sim-key-\(UUID()).pem")
        try P256.Signing.PrivateKey().publicKey.pemRepresentation.write(
            to: url, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// A fleet entry's `app_version` is the bootloader settings' version, apart from the string.
    func testFleetEntryTakesTheSettingsApplicationVersion() throws {
        let json = """
            {"devices": [{"device": "C0:DE:00:00:00:20", "package": "app.zip",
              "simulate": {"kind": "secure-app", "firmware_version": "1.0.0", "app_version": 3}}]}
            """
        let inventory = try FleetInventory(json: Data(json.utf8))
        let configuration = try SimulatedDeviceConfiguration(fleetEntry: inventory.devices[0], index: 0)
        XCTAssertEqual(configuration.firmwareVersion, "1.0.0")
        XCTAssertEqual(configuration.settingsApplicationVersion, 3)
    }

    /// Entries with the same `simulate` object are read once: each gets the configuration it
    /// gets alone, at its own address; an entry with other options is read for itself.
    func testFleetEntriesReadEachSimulateObjectOnce() throws {
        let json = """
            {"devices": [
              {"device": "C0:DE:00:00:00:20", "simulate": {"kind": "secure-app", "firmware_version": "1.0.0"}},
              {"device": "C0:DE:00:00:00:22", "simulate": {"kind": "secure-app", "firmware_version": "1.0.0"}},
              {"device": "C0:DE:00:00:00:24", "simulate": {"kind": "secure-app", "firmware_version": "2.0.0"}}]}
            """
        let inventory = try FleetInventory(json: Data(json.utf8))
        var parsed: [[String]: SimulationOptions] = [:]
        for (index, entry) in inventory.devices.enumerated() {
            let shared = try SimulatedDeviceConfiguration(fleetEntry: entry, index: index, parsed: &parsed)
            let alone = try SimulatedDeviceConfiguration(fleetEntry: entry, index: index)
            XCTAssertEqual(shared.address, alone.address)
            XCTAssertEqual(shared.address.description, entry.device)
            XCTAssertEqual(shared.firmwareVersion, alone.firmwareVersion)
        }
        XCTAssertEqual(parsed.count, 2, "read once per distinct simulate object")
    }

    func testBuildsAConfigurationFromTheContractsOptions() throws {
        let options = try SimulationOptions.parse([
            "--simulate", "legacy-app", "--sim-dfu-version", "0.6", "--sim-firmware-version", "2.0.1",
            "--sim-app-version", "3", "--sim-hw-version", "53", "--sim-sd-id", "0x88", "--sim-public-key",
            try keyFile().path,
            "--sim-mtu", "185", "--sim-bank-kib", "2048", "--sim-fault", "drop-final-answer=2", "--sim-fault",
            "slow-flash=300",
        ])
        let configuration = try options.configuration(address: address, name: "Thermo")
        XCTAssertEqual(configuration.kind, .legacyApp)
        XCTAssertEqual(configuration.address, address)
        XCTAssertEqual(configuration.name, "Thermo")
        XCTAssertEqual(configuration.legacyDFUVersion, LegacyDFUVersion(major: 0, minor: 6))
        XCTAssertEqual(configuration.firmwareVersion, "2.0.1")
        XCTAssertEqual(configuration.settingsApplicationVersion, 3, "apart from the reported string")
        XCTAssertEqual(configuration.hardwareVersion, 53)
        XCTAssertEqual(configuration.softDeviceID, 0x88)
        XCTAssertNotNil(configuration.publicKey)
        XCTAssertEqual(configuration.mtu, 185)
        XCTAssertEqual(configuration.bankCapacity, 2048 * 1024)
        XCTAssertEqual(configuration.faults, [.dropFinalAnswer(2), .slowFlash(.milliseconds(300))])
    }

    func testRefusesAFaultTheKindDoesNotInjectNamingTheKindsItAppliesTo() throws {
        let cases: [(String, String, String)] = [
            ("smp-app", "crc-error=1", "applies to secure, secure-app, secure-app-bonded"),
            ("legacy", "crc-error=1", "applies to secure, secure-app, secure-app-bonded"),
            ("secure-app", "revert-after-test", "applies to smp-app"),
            (
                "smp-app", "drop-final-answer=1",
                "applies to secure, secure-app, secure-app-bonded, legacy, legacy-app"
            ),
        ]
        for (kind, fault, kinds) in cases {
            XCTAssertThrowsError(try SimulationOptions.parse(["--simulate", kind, "--sim-fault", fault])) {
                let message = SimulationOptions.message(for: $0)
                XCTAssertTrue(
                    message.contains("--sim-fault \(fault) does nothing with --simulate \(kind)"), message)
                XCTAssertTrue(message.contains(kinds), message)
            }
        }
        XCTAssertNoThrow(
            try SimulationOptions.parse(["--simulate", "smp-app", "--sim-fault", "disconnect-at=100"]))
        let json = """
            {"devices": [{"device": "sim-1", "simulate": {"kind": "secure-app", "faults": ["revert-after-test"]}}]}
            """
        let inventory = try FleetInventory(json: Data(json.utf8))
        XCTAssertThrowsError(try SimulatedDeviceConfiguration(fleetEntry: inventory.devices[0], index: 0)) {
            XCTAssertTrue("\($0)".contains("device 'sim-1'"), "\($0)")
            XCTAssertTrue("\($0)".contains("applies to smp-app"), "\($0)")
        }
    }

    func testDefaultsAreTheContracts() throws {
        let configuration = try SimulationOptions.parse(["--simulate", "secure"]).configuration(
            address: address)
        XCTAssertEqual(configuration.kind, .secure)
        XCTAssertEqual(configuration.name, "DfuSim")
        XCTAssertEqual(configuration.legacyDFUVersion, LegacyDFUVersion(major: 0, minor: 8))
        XCTAssertNil(configuration.firmwareVersion)
        XCTAssertEqual(configuration.hardwareVersion, 52)
        XCTAssertEqual(configuration.softDeviceID, 0xB6)
        XCTAssertNil(configuration.publicKey)
        XCTAssertEqual(configuration.mtu, 247)
        XCTAssertEqual(configuration.faults, [])
    }

    func testRejectsBadValuesNamingTheOption() {
        let cases: [(String, [String])] = [
            ("--simulate", ["--simulate", "nordic"]),
            ("--sim-dfu-version", ["--simulate", "legacy", "--sim-dfu-version", "0.9"]),
            ("--sim-sd-id", ["--simulate", "secure", "--sim-sd-id", "0x1FFFF"]),
            ("--sim-hw-version", ["--simulate", "secure", "--sim-hw-version", "x"]),
            ("--sim-fault", ["--simulate", "secure", "--sim-fault", "boom=1"]),
            ("--simulate", ["--sim-mtu", "100"]),
        ]
        for (option, arguments) in cases {
            XCTAssertThrowsError(try SimulationOptions.parse(arguments), "\(arguments)") { error in
                let message = SimulationOptions.message(for: error)
                XCTAssertTrue(message.contains(option), message)
            }
        }
    }

    func testRejectsOutOfRangeValuesAndMissingKeysWhenConfiguring() throws {
        let mtu = try SimulationOptions.parse(["--simulate", "secure", "--sim-mtu", "10"])
        XCTAssertThrowsError(try mtu.configuration(address: address)) { error in
            let error = error as? SimulationOptionsError
            XCTAssertEqual(error?.isMissingFile, false)
            XCTAssertTrue(error?.description.contains("--sim-mtu") == true, "\(String(describing: error))")
        }
        let bank = try SimulationOptions.parse(["--simulate", "secure", "--sim-bank-kib", "0"])
        XCTAssertThrowsError(try bank.configuration(address: address)) { error in
            XCTAssertTrue("\(error)".contains("--sim-bank-kib"), "\(error)")
        }
        let key = try SimulationOptions.parse(["--simulate", "secure", "--sim-public-key", "/nonexistent"])
        XCTAssertThrowsError(try key.configuration(address: address)) { error in
            let error = error as? SimulationOptionsError
            XCTAssertEqual(error?.isMissingFile, true)
            XCTAssertTrue(
                error?.description.contains("--sim-public-key") == true, "\(String(describing: error))")
        }
    }
}
