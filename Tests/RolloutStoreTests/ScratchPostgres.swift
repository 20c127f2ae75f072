import DFURolloutPostgres
import Foundation
import TestSupport

/// The PostgreSQL server the tests use: the one `scripts/test.sh` started (its directory in
/// `DFU_TEST_POSTGRES_DIR`), or, outside CI, one started here by the same script and stopped
/// when the test class ends. In CI a missing server fails the tests: they never skip.
final class ScratchPostgres: Sendable {
    let directory: URL
    /// Whether this process started it, and so stops it.
    let ownsServer: Bool
    let location: PostgresStoreLocation
    /// The superuser's, which owns the schema.
    let password: String

    static func findOrStart() async throws -> ScratchPostgres {
        let environment = ProcessInfo.processInfo.environment
        if let directory = environment["DFU_TEST_POSTGRES_DIR"] {
            return try ScratchPostgres(directory: URL(fileURLWithPath: directory), ownsServer: false)
        }
        guard environment["CI"] == nil else {
            throw ScratchPostgresError(
                description: "DFU_TEST_POSTGRES_DIR is not set in CI: scripts/test.sh sets it")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-pg-\(UUID().uuidString.prefix(8))")
        try await script("start", directory)
        return try ScratchPostgres(directory: directory, ownsServer: true)
    }

    private init(directory: URL, ownsServer: Bool) throws {
        self.directory = directory
        self.ownsServer = ownsServer
        let url = try String(contentsOf: directory.appendingPathComponent("url"), encoding: .utf8)
        location = try PostgresStoreLocation(url: url.trimmingCharacters(in: .whitespacesAndNewlines))
        password = try String(contentsOf: directory.appendingPathComponent("password"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the server (the connections it had are cut); `start` starts it again on its port.
    func stop() async throws { try await Self.script("stop", directory) }

    func start() async throws { try await Self.script("start", directory) }

    /// Freezes the server (SIGSTOP to its postmaster and every process it started): its
    /// sockets stay open and nothing answers, as with a server hung or a network that drops
    /// packets; `thaw` (SIGCONT) lets it go on. Returns the processes frozen.
    func freeze() throws -> [pid_t] {
        guard let postmaster = postmasterPID() else {
            throw ScratchPostgresError(description: "no server runs in \(directory.path)")
        }
        let children = try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { entry in
            pid_t(entry).flatMap { pid in
                // the parent pid is the second field after the command, which is in parentheses
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
                let fields = stat.flatMap { $0.split(separator: ")").last }?.split(separator: " ")
                return fields.flatMap { $0.count > 1 ? pid_t($0[1]) : nil } == postmaster ? pid : nil
            }
        }
        let frozen = [postmaster] + children
        for pid in frozen { kill(pid, SIGSTOP) }
        return frozen
    }

    static func thaw(_ frozen: [pid_t]) {
        for pid in frozen { kill(pid, SIGCONT) }
    }

    /// Stops the server if this process started it (SIGINT to the pid in its postmaster.pid,
    /// then up to 30 s for it to end), and removes its directory.
    func stopIfOwned() {
        guard ownsServer else { return }
        if let pid = postmasterPID(), kill(pid, SIGINT) == 0 {
            for _ in 0..<300 where kill(pid, 0) == 0 { usleep(100_000) }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The server's pid, from the first line of its postmaster.pid; nil when none runs.
    private func postmasterPID() -> pid_t? {
        let pidFile = directory.appendingPathComponent("data/postmaster.pid")
        let text = try? String(contentsOf: pidFile, encoding: .utf8)
        return text?.split(separator: "\n").first.flatMap { pid_t($0) }
    }

    /// Runs `scripts/scratch-postgres.sh COMMAND DIRECTORY` to its end (at most 90 s).
    private static func script(_ command: String, _ directory: URL) async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let output = try await ProcessRunner.run(
            root.appendingPathComponent("scripts/scratch-postgres.sh"), [command, directory.path],
            timeout: .seconds(90))
        guard output.status == 0 else {
            throw ScratchPostgresError(
                description: "scratch-postgres.sh \(command) exited \(output.status): \(output.stderr)")
        }
    }
}

/// The scratch server could not be found, started or stopped.
struct ScratchPostgresError: Error, CustomStringConvertible {
    var description: String
}
