import DBus
import Foundation
import SimulatorProcess
import TestSupport
import XCTest

/// `dfu-update flash --pair` through `dfu-sim --bluetoothd-stand-in` (docs/dfu-sim.md): its
/// agent registers, the device pairs, and the bond policy leaves exactly the bonds it states
/// (docs/pairing.md); no output of either program holds the passkey.
final class FlashPairingCLITests: XCTestCase {
    private let passkey = "314159"
    private let devicePath = "/org/bluez/hci0/dev_C0_DE_00_00_00_10"

    func testABondThisRunMadeIsRemovedUnlessKeptAndOneHeldBeforeIsKept() async throws {
        let bus = try TestBus()
        defer { bus.kill() }
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "DEVICE_PASSKEY": passkey]
        let package = try Fixtures.url("secure/secure_app_4096_bin_signed.zip").path
        let observer = try await bus.connect()
        defer { observer.close() }
        var outputs: [String] = []
        // (bonded before the run, options, bonded after it); each against a device of its own
        let cases = [(false, [String](), false), (false, ["--keep-bond"], true), (true, [], true)]
        for (pairedBefore, extra, pairedAfter) in cases {
            let simulator = try DFUSimProcess(
                executable: CLIRunner.executable(named: "dfu-sim"),
                arguments: ["--bluetoothd-stand-in", "--simulate", "secure", "--instant-flash"],
                environment: environment)
            _ = try await simulator.serving { address in
                if pairedBefore { _ = try await device(observer, "Pair") }
                let run = try await CLIRunner.run(
                    [
                        "flash", package, "--device", address, "--pair", "--passkey-env", "DEVICE_PASSKEY",
                        "--json",
                    ]
                        + extra, environment: environment)
                outputs += [run.stdoutText, run.stderr]
                XCTAssertEqual(run.status, 0, "\(extra): \(run.stderr) \(run.stdoutText)")
                let paired = try await device(
                    observer, "Get", interface: "org.freedesktop.DBus.Properties",
                    [.string("org.bluez.Device1"), .string("Paired")])
                XCTAssertEqual(
                    paired.first?.boolValue, pairedAfter, "bonded before: \(pairedBefore), \(extra)")
            }
            outputs.append(simulator.errorOutput)
            outputs += simulator.events.map { "\($0)" }
        }
        for output in outputs { XCTAssertFalse(output.contains(passkey), "the passkey in: \(output)") }
    }

    /// Calls a method of the stand-in's device.
    private func device(
        _ connection: DBusConnection, _ member: String, interface: String = "org.bluez.Device1",
        _ arguments: [DBusValue] = []
    ) async throws -> [DBusValue] {
        try await connection.call(
            destination: "org.bluez", path: devicePath, interface: interface, member: member,
            arguments: arguments)
    }

    func testTwoPasskeySourcesAreAUsageError() async throws {
        let run = try await CLIRunner.run([
            "flash", "x.zip", "--device", "C0:DE:00:00:00:10", "--passkey-env", "A", "--passkey-file", "/f",
            "--json",
        ])
        XCTAssertEqual(run.status, 64, run.stderr)
        let error = try run.errorObject()
        XCTAssertEqual(try error.string("class"), "usage")
        XCTAssertTrue(try error.string("message").contains("exclude each other"))
    }
}

/// dfu-sim's pairing options: a passkey only from a safe source, and only where it is used.
final class SimPairingCLITests: XCTestCase {
    func testASecurityLevelNeedsWhatItUses() async throws {
        let dfuSim = CLIRunner.executable(named: "dfu-sim")
        for arguments in [
            ["--sim-security", "authenticated"], ["--sim-security", "encrypt", "--sim-passkey-env", "P"],
            ["--sim-security", "authenticated", "--sim-passkey-env", "P", "--sim-passkey-file", "/f"],
            ["--sim-security", "encrypt", "--bluetoothd-stand-in"], ["--sim-security", "secret"],
        ] {
            let run = try await ProcessRunner.run(dfuSim, ["--simulate", "smp-app"] + arguments)
            XCTAssertEqual(run.status, 64, "\(arguments): \(run.stderr)")
        }
    }
}
