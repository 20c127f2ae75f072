import Foundation

/// A private `dbus-daemon` (a test class's bus, or a benchmark's), killed by pid when it is done.
package final class PrivateBus: @unchecked Sendable {
    /// The address to connect to.
    package let address: String
    private let process: Process
    private let directory: URL

    /// Starts the daemon and waits (at most 10 s) for it to print its address. With `tcp` it
    /// listens on 127.0.0.1 instead of a UNIX socket (so descriptors cannot be passed).
    package init(tcp: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dbus-private-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try Self.configuration(socketDirectory: directory.path, tcp: tcp).write(
            to: config, atomically: true, encoding: .utf8)

        let output = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(config.path)", "--nofork", "--print-address=1", "--nopidfile"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()

        let reader = output.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(10)
        var received: [UInt8] = []
        while !received.contains(UInt8(ascii: "\n")) {
            var descriptor = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = ready > 0 ? read(reader, &buffer, buffer.count) : 0
            if count > 0 { received += buffer[..<count] }
            guard Date() < deadline, process.isRunning, ready >= 0, count >= 0, !(ready > 0 && count == 0)
            else {
                Self.stop(process)
                throw DaemonDidNotStart()
            }
        }
        address = String(decoding: received.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }

    package var pid: Int32 { process.processIdentifier }

    /// Kills the daemon (SIGKILL, by pid) and waits for it to exit.
    package func kill() {
        Self.stop(process)
    }

    private static func stop(_ process: Process) {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// dbus-daemon did not start (a failure: scripts/install-deps.sh installs it).
    package struct DaemonDidNotStart: Error, CustomStringConvertible {
        package var description: String {
            "dbus-daemon did not print its address within 10 s; is it installed (scripts/install-deps.sh)?"
        }
    }

    /// A session-style bus that lets any local connection own names (and pass fds over UNIX sockets).
    private static func configuration(socketDirectory: String, tcp: Bool) -> String {
        // Over TCP there are no peer credentials, so EXTERNAL cannot work: allow ANONYMOUS.
        let transport =
            tcp
            ? "<listen>tcp:host=127.0.0.1,bind=127.0.0.1,port=0</listen><auth>ANONYMOUS</auth><allow_anonymous/>"
            : "<listen>unix:dir=\(socketDirectory)</listen><auth>EXTERNAL</auth>"
        return """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              \(transport)
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
