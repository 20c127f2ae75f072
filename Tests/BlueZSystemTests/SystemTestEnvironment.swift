import BlueZ
import DBus
import DFUSupport
import Foundation
import GATT
import TestSupport
import XCTest

/// Where the system tests run: inside the VM of scripts/vm/run.sh, which sets `DFU_UPDATE_VM=1`
/// and runs bluetoothd with virtual controllers hci0 (the central here), hci1 (the test
/// peripheral) and more (`DFU_UPDATE_VM_CONTROLLERS` in all, for tests with several
/// peripherals). Anywhere else the tests skip.
enum SystemTestEnvironment {
    static let centralAdapter = "hci0"
    static let peripheralAdapter = "hci1"

    /// Every controller of the VM but the central's: hci1, hci2, … (run.sh's `--controllers`).
    static var peripheralAdapters: [String] {
        let count = Int(ProcessInfo.processInfo.environment["DFU_UPDATE_VM_CONTROLLERS"] ?? "") ?? 2
        return (1..<max(count, 2)).map { "hci\($0)" }
    }

    /// Skips the calling test unless bluetoothd with the VM's controllers is there.
    static func requireBlueZ() async throws {
        guard ProcessInfo.processInfo.environment["DFU_UPDATE_VM"] == "1" else {
            throw XCTSkip(
                "needs real bluetoothd with the VM's virtual controllers: run inside scripts/vm/run.sh "
                    + "(scripts/test.sh does)")
        }
        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect(to: .system)
        } catch {
            throw XCTSkip("no system D-Bus in the VM: \(error)")
        }
        defer { connection.close() }
        let reply = try await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: "NameHasOwner", arguments: [.string("org.bluez")], timeout: .seconds(5))
        guard reply.first?.boolValue == true else {
            throw XCTSkip("bluetoothd (org.bluez) is not on the system bus")
        }
    }

    /// The `dfu-update` executable built next to this test bundle.
    static var dfuUpdateExecutable: URL { executable("dfu-update") }

    /// An executable of this package built next to this test bundle.
    static func executable(_ name: String) -> URL { CLIRunner.executable(named: name) }

    /// A file of this repository, e.g. `Firmware/secure_app.zip`.
    static func repositoryFile(_ path: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(path).path
    }

    /// Runs a program to its end (at most `timeout`); returns its exit status and output.
    static func run(_ executable: URL, _ arguments: [String], timeout: Duration = .seconds(60)) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let output = try await ProcessRunner.run(executable, arguments, timeout: timeout)
        return (output.status, output.stdoutText, output.stderr)
    }

    /// Runs a program and sends it SIGINT (Ctrl-C) as soon as its standard output contains
    /// `text`; returns its exit status and output.
    static func runInterrupted(
        _ executable: URL, _ arguments: [String], afterOutputContaining text: String,
        timeout: Duration = .seconds(120)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let output = try await ProcessRunner.run(
            executable, arguments, timeout: timeout, interruptingWhen: text)
        return (output.status, output.stdoutText, output.stderr)
    }

    /// Drops the LE link from the peripheral's side through the kernel's management interface
    /// (`btmgmt disconnect`, about 0.2 s; `Device1.Disconnect` takes 2 s).
    static func dropLink(from adapterIndex: Int, to address: String) async throws {
        let result = try await run(
            URL(fileURLWithPath: "/usr/bin/btmgmt"),
            ["--index", String(adapterIndex), "disconnect", "-t", "1", address], timeout: .seconds(10))
        XCTAssertEqual(result.status, 0, "btmgmt disconnect: \(result.stdout) \(result.stderr)")
    }
}
