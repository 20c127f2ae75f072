import Foundation
import TestSupport
import XCTest

@testable import NordicDFU

/// The error objects and exit codes of docs/cli-contract.md ("Errors"), for every kind of
/// failure a command reports before or without a device: usage, files, keys, packages.
final class CLIErrorTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    private func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    private func assertError(
        _ arguments: [String], status: Int32, errorClass: String, mentions: String? = nil,
        environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let run = try await CLIRunner.run(arguments, environment: environment)
        XCTAssertEqual(run.status, status, "\(arguments): \(run.stderr)", file: file, line: line)
        let error = try run.errorObject()
        XCTAssertEqual(try error.string("class"), errorClass, "\(arguments)", file: file, line: line)
        let message = try error.string("message")
        XCTAssertFalse(message.isEmpty || message.contains("\n"), message, file: file, line: line)
        if let mentions { XCTAssertTrue(message.contains(mentions), message, file: file, line: line) }
    }

    func testUsageErrorsWithJSONPrintTheErrorObject() async throws {
        let package = try Fixtures.url("secure/secure_app_4096_bin_signed.zip").path
        try await assertError(["flash", "--json"], status: 64, errorClass: "usage", mentions: "package")
        try await assertError(
            ["inspect", package, "--json", "--no-such-flag"], status: 64, errorClass: "usage")
        try await assertError(
            ["flash", package, "--json", "--simulate", "secure", "--bootloader-address", "sometimes"],
            status: 64,
            errorClass: "usage", mentions: "sometimes")
        try await assertError(
            ["flash", package, "--json", "--simulate", "secure", "--package-version", "1.x"], status: 64,
            errorClass: "usage")
        try await assertError(
            ["flash", package, "--json", "--simulate", "secure", "--version-characteristic", "not-a-uuid"],
            status: 64, errorClass: "usage")
        try await assertError(
            ["flash", package, "--json"], status: 64, errorClass: "usage", mentions: "--device")
        try await assertError(["scan", "--json", "--timeout", "0"], status: 64, errorClass: "usage")
        // a misspelt command is named as the mistake, not the first option after it
        try await assertError(
            ["flsh", package, "--json"], status: 64, errorClass: "usage",
            mentions: "'flsh' is not a command of dfu-update; use one of inspect, adapters, scan, info, flash"
        )
        try await assertError(
            ["rollout", "stauts", "spring", "--json"], status: 64, errorClass: "usage",
            mentions: "'stauts' is not a command of dfu-update rollout; use one of")
        // the values ArgumentParser lists under its line, not a line ending in "following:"
        try await assertError(
            ["flash", package, "--json", "--simulate", "toaster"], status: 64, errorClass: "usage",
            mentions: "one of the following: secure, secure-app, secure-app-bonded, legacy")
    }

    /// `--device` is parsed by the argument parser: text shaped like an address that is none is a
    /// usage error naming the text and both forms the option takes, before any file is read.
    func testBadDeviceTextIsAUsageErrorNamingTheForms() async throws {
        for command in [["flash", "x.zip"], ["info"]] {
            for text in [
                "C0:DE:00:00:00:1", "+0:DE:00:00:00:10", "c0:de:00:00:00:zz", "", "C0-DE-00-00-00-10",
                " C0:DE:00:00:00:10",
            ] {
                try await assertError(
                    command + ["--json", "--device", text], status: 64, errorClass: "usage",
                    mentions:
                        "--device takes an address (AA:BB:CC:DD:EE:FF, either case) or an advertised name")
                let run = try await CLIRunner.run(command + ["--json", "--device", text])
                XCTAssertTrue(try run.errorObject().string("message").contains("'\(text)'"), run.stdoutText)
            }
        }
    }

    /// Operators' slips the parser alone would let through, each refused naming what is wrong.
    func testOperatorsSlipsAreUsageErrors() async throws {
        let package = try Fixtures.url("secure/secure_app_4096_bin_signed.zip").path
        // a duration too short for any device to answer: refused at the bound, not "within 0 s"
        for option in ["--connect-timeout", "--response-timeout", "--bootloader-wait"] {
            try await assertError(
                ["flash", package, "--json", "--simulate", "secure-app", option, "1e-300"], status: 64,
                errorClass: "usage", mentions: "'1e-300' is not a number of seconds from 0.01 to 3600")
        }
        try await assertError(
            ["scan", "--json", "--simulate", "secure-app", "--timeout", "0.001"], status: 64,
            errorClass: "usage", mentions: "from 0.01 to 3600")
        // an empty pattern would list the devices that advertise no name
        for name in ["", "  "] {
            try await assertError(
                ["scan", "--json", "--simulate", "secure-app", "--name", name], status: 64,
                errorClass: "usage", mentions: "--name takes a name or a pattern")
        }
        // the simulated device is on no adapter: one named would go unused
        for command in [
            ["flash", package, "--device", "C0:DE:00:00:00:10"], ["info", "--device", "C0:DE:00:00:00:10"],
            ["scan"],
        ] {
            try await assertError(
                command + ["--json", "--simulate", "secure-app", "--adapter", "hci1"], status: 64,
                errorClass: "usage", mentions: "--adapter hci1 goes unused with --simulate")
        }
    }

    /// A misspelt option is the error, not the check it defeats ("--device is required"): every
    /// command's own checks wait until ArgumentParser has read the whole command line.
    func testAnUnknownOptionIsTheErrorBeforeTheCommandsChecks() async throws {
        try await assertError(
            ["flash", "app.zip", "--devcie", "AA:BB:CC:DD:EE:FF", "--json"], status: 64, errorClass: "usage",
            mentions: "Unknown option '--devcie' (did you mean '--device'?)")
        try await assertError(
            ["rollout", "create", " spaced ", "fleet.json", "--canery", "2", "--json"], status: 64,
            errorClass: "usage", mentions: "Unknown option '--canery'")
        try await assertError(
            ["scan", "--name", "", "--sim-fualt", "x", "--json"], status: 64, errorClass: "usage",
            mentions: "Unknown option '--sim-fualt'")
    }

    /// A store whose folder cannot be made (a file where a folder should be) is the store's
    /// failure, naming the folder, the file and what to try, for the commands that make a store.
    func testAStoreFolderThatCannotBeMadeIsAStoreError() async throws {
        let store = ["--store", "/dev/null/x/rollouts.sqlite"]
        let package = try Data(contentsOf: Fixtures.url("secure/secure_app_4096_bin_signed.zip"))
        _ = try write("app.zip", Array(package))
        let inventory = try write(
            "fleet.json",
            Array(#"{"defaults": {"package": "app.zip"}, "devices": [{"device": "C0:DE:00:00:00:10"}]}"#.utf8)
        )
        for command in [["rollout", "migrate"], ["rollout", "create", "spring", inventory]] {
            try await assertError(
                command + store + ["--json"], status: 1, errorClass: "store_error",
                mentions: "the folder /dev/null/x of /dev/null/x/rollouts.sqlite (--store) cannot be made: "
                    + "/dev/null is not a folder; give a store file in a folder that exists")
        }
        let text = try await CLIRunner.run(["rollout", "migrate"] + store)
        XCTAssertEqual(text.status, 1)
        XCTAssertTrue(text.stderr.hasPrefix("error: the rollout store failed: "), text.stderr)
    }

    func testUsageErrorsWithoutJSONPrintNothingOnStdout() async throws {
        let run = try await CLIRunner.run(["flash", "--bootloader-address", "sometimes", "x.zip"])
        XCTAssertEqual(run.status, 64)
        XCTAssertTrue(run.stdout.isEmpty, run.stdoutText)
        XCTAssertTrue(run.stderr.contains("sometimes"), run.stderr)
    }

    func testFileAndPackageErrors() async throws {
        try await assertError(
            ["flash", "/nonexistent/app.zip", "--json", "--simulate", "secure"], status: 66,
            errorClass: "file_not_found", mentions: "/nonexistent/app.zip")
        let hex = try write("app.hex", Array(":10000000FFFF\n".utf8))
        try await assertError(
            ["inspect", hex, "--json"], status: 65, errorClass: "invalid_hex", mentions: "app.hex")
        let key = try write("key.txt", Array("not a key".utf8))
        try await assertError(
            [
                "inspect", try Fixtures.url("secure/secure_app_4096_bin_signed.zip").path, "--public-key",
                key, "--json",
            ],
            status: 64, errorClass: "invalid_public_key", mentions: "key.txt")
    }

    /// inspect describes every hash type; flash refuses, before connecting, one the bootloaders
    /// cannot check (with no Bluetooth on the host, connecting first would end in exit 69).
    func testHashTypesInspectedAndRefusedBeforeConnecting() async throws {
        for (wire, name) in [(Dfu_HashType.crc, "crc"), (.sha128, "sha128"), (.noHash, "none")] {
            let dat = TestPackages.secureDat(for: TestPackages.firmware) {
                $0.hash.hashType = wire
                $0.hash.hash = Data([1, 2, 3, 4])
            }
            let package = try write("\(name).zip", TestPackages.app(dat: dat))
            let inspected = try await CLIRunner.run(["inspect", package, "--json"])
            XCTAssertEqual(inspected.status, 0, inspected.stdoutText)
            let report = try XCTUnwrap(try inspected.jsonLines().first)
            let packet = try report.objects("images")[0].object("init_packet")
            XCTAssertEqual(try packet.string("hash_type"), name)
            XCTAssertEqual(try packet.string("hash"), "01020304")
            try await assertError(
                ["flash", package, "--json", "--device", "C0:DE:00:00:00:10", "--adapter", "hci77"],
                status: 65,
                errorClass: "unsupported_hash_type", mentions: name)
        }
    }

    /// Issue 36: every command that hands a package to devices refuses, before connecting to any,
    /// one that Nordic's bootloaders cannot verify, with one error (the gateway, which takes its
    /// packages from a store: GatewayAgentTests).
    func testEveryUpdatingCommandRefusesAPackageBootloadersCannotVerify() async throws {
        let package = try SHA512Package.write(into: directory).path
        let inventory = try write(
            "fleet.json",
            Array(
                #"{"defaults": {"package": "sha512_app.zip"}, "devices": [{"device": "C0:DE:00:00:00:10", "simulate": {"kind": "secure-app"}}]}"#
                    .utf8))
        let store = directory.appendingPathComponent("rollouts.sqlite").path
        for command in [
            ["flash", package, "--simulate", "secure-app"], ["fleet", inventory],
            ["rollout", "create", "spring", inventory, "--store", store],
        ] {
            // nothing else on stdout: no plan, no device event, no rollout
            try await assertError(
                command + ["--json"], status: 65, errorClass: "unsupported_hash_type",
                mentions: "sha512_app.zip: entry 'app.dat': the init packet's hash type is sha512")
        }
    }

    /// Without a system bus, and with one that bluetoothd is not on, every Bluetooth command
    /// exits 69 and says what to start.
    func testNoSystemBusAndNoBluetoothdSayWhatToStart() async throws {
        let absent = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(directory.path)/no-bus-here"]
        try await assertError(
            ["scan", "--json", "--timeout", "1"], status: 69, errorClass: "bluetooth_unavailable",
            mentions: "systemctl start dbus", environment: absent)
        try await assertError(
            ["info", "--json", "--device", "C0:DE:00:00:00:10"], status: 69,
            errorClass: "bluetooth_unavailable",
            mentions: "DBUS_SYSTEM_BUS_ADDRESS", environment: absent)

        let bus = try TestBus()
        defer { bus.kill() }
        try await assertError(
            ["scan", "--json", "--timeout", "1"], status: 69, errorClass: "bluetooth_unavailable",
            mentions: "bluetoothd is not running", environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
    }
}
