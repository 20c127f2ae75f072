import BlueZ
import DBus
import DFUSupport
import Foundation
import GATT
import XCTest

/// Where the system tests run: inside the VM of scripts/vm/run.sh, which sets `DFU_UPDATE_VM=1`
/// and runs bluetoothd with two virtual controllers, hci0 (the central here) and hci1 (the
/// test peripheral). Anywhere else the tests skip.
enum SystemTestEnvironment {
    static let centralAdapter = "hci0"
    static let peripheralAdapter = "hci1"

    /// Skips the calling test unless bluetoothd with the VM's controllers is there.
    static func requireBlueZ() async throws {
        guard ProcessInfo.processInfo.environment["DFU_UPDATE_VM"] == "1" else {
            throw XCTSkip(
                "needs real bluetoothd with two virtual controllers: run inside scripts/vm/run.sh "
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
    static func executable(_ name: String) -> URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // the bundle may be a directory (…/dfu-updatePackageTests.xctest) or a file
        while directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent(name)
    }

    /// A file of this repository, e.g. `Firmware/secure_app.zip`.
    static func repositoryFile(_ path: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(path).path
    }

    /// Runs a program to its end (at most `timeout`); returns its exit status and output.
    static func run(_ executable: URL, _ arguments: [String], timeout: Duration = .seconds(60)) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        try await run(executable, arguments, timeout: timeout, interruptWhen: nil)
    }

    /// Runs a program and sends it SIGINT (Ctrl-C) as soon as its standard output contains
    /// `text`; returns its exit status and output.
    static func runInterrupted(
        _ executable: URL, _ arguments: [String], afterOutputContaining text: String,
        timeout: Duration = .seconds(120)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await run(executable, arguments, timeout: timeout, interruptWhen: text)
    }

    private static func run(
        _ executable: URL, _ arguments: [String], timeout: Duration, interruptWhen trigger: String?
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = ContinuousClock.now + timeout
        // Read both pipes while the program runs, so that it never blocks on a full pipe; on
        // threads of their own: blocking the concurrency pool's few threads would starve the
        // test peripheral's handlers, which the program talks to.
        let stdoutSoFar = Locked(Data())
        async let stdout = readToEnd(out.fileHandleForReading, into: stdoutSoFar)
        async let stderr = readToEnd(err.fileHandleForReading, into: Locked(Data()))
        var interrupted = false
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                XCTFail("\(executable.lastPathComponent) \(arguments) did not end within \(timeout)")
                break
            }
            if let trigger, !interrupted,
                String(decoding: stdoutSoFar.withLock { $0 }, as: UTF8.self).contains(trigger)
            {
                process.interrupt()
                interrupted = true
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: await stdout, as: UTF8.self),
            String(decoding: await stderr, as: UTF8.self)
        )
    }

    /// Reads `handle` to its end, keeping what came so far in `soFar`.
    private static func readToEnd(_ handle: FileHandle, into soFar: Locked<Data>) async -> Data {
        await withCheckedContinuation { continuation in
            Thread {
                while case let chunk = handle.availableData, !chunk.isEmpty {
                    soFar.withLock { $0.append(chunk) }
                }
                continuation.resume(returning: soFar.withLock { $0 })
            }.start()
        }
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
