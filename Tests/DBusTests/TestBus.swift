import DBus
import Foundation
import XCTest

/// A private `dbus-daemon` started for one test class, killed by pid when it is done.
final class TestBus: @unchecked Sendable {
    let address: String
    private let process: Process
    private let directory: URL

    /// Starts the daemon and waits (at most 10 s) for it to print its address.
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dbus-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try Self.configuration(socketDirectory: directory.path).write(
            to: config, atomically: true, encoding: .utf8)

        let output = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(config.path)", "--nofork", "--print-address=1", "--nopidfile"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()

        let reader = output.fileHandleForReading
        let deadline = Date().addingTimeInterval(10)
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            guard Date() < deadline, process.isRunning else {
                process.terminate()
                throw XCTSkip("dbus-daemon did not start within 10 s; is the dbus-daemon package installed?")
            }
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        guard let line = String(data: received, encoding: .utf8)?.split(separator: "\n").first else {
            process.terminate()
            throw XCTSkip("dbus-daemon printed no address")
        }
        address = String(line)
    }

    var pid: Int32 { process.processIdentifier }

    /// Kills the daemon (SIGKILL, by pid) and waits for it to exit.
    func kill() {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    func connect() async throws -> DBusConnection {
        try await DBusConnection.connect(to: .address(address))
    }

    /// A session-style bus that lets any local connection own names and pass fds.
    private static func configuration(socketDirectory: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:dir=\(socketDirectory)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
          <limit name="max_replies_per_connection">50000</limit>
          <limit name="max_incoming_unix_fds">2048</limit>
        </busconfig>
        """
    }
}

/// Runs `body` with a time limit; fails the test instead of hanging.
func withTimeout<T: Sendable>(
    _ seconds: Double, file: StaticString = #filePath, line: UInt = #line,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            XCTFail("timed out after \(seconds) s", file: file, line: line)
            throw CancellationError()
        }
        return value
    }
}
