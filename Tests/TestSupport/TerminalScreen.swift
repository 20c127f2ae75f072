import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// A command run in a pseudo-terminal of tmux, as a person runs it, and the screen it leaves:
/// what the terminal shows once the command ended, with every redraw and erase applied.
public enum TerminalScreen {
    /// Runs `command` (a shell command line) in a `columns`×`rows` terminal and returns the
    /// screen's lines once it ended (trailing blank lines dropped) and its exit status. tmux is
    /// required (scripts/install-deps.sh installs it): without it the test fails, it never skips.
    /// `interruptOn`: once a line of the screen starts with it, Ctrl-C is typed, once.
    public static func run(
        _ command: String, in folder: URL, columns: Int = 100, rows: Int = 60,
        timeout: Duration = .seconds(90), interruptOn: String? = nil
    ) async throws -> (screen: [String], status: Int32) {
        // a tmux server of its own (socket named for the session): a server shared between runs
        // exits when its last session is killed, and a run starting then finds it gone
        let session = "dfu-test-\(UUID().uuidString.prefix(8))"
        let tmux = { (arguments: [String]) throws -> String in try Self.tmux(arguments, server: session) }
        let marker = "EXIT-STATUS="
        let script = "cd '\(folder.path)' && \(command); echo \(marker)$?; sleep 600"
        _ = try tmux(["new-session", "-d", "-s", session, "-x", String(columns), "-y", String(rows), script])
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        let deadline = ContinuousClock.now + timeout
        var interruptOn = interruptOn
        while ContinuousClock.now < deadline {
            let screen = try tmux(["capture-pane", "-p", "-t", session]).split(
                separator: "\n", omittingEmptySubsequences: false
            ).map(String.init)
            if let prefix = interruptOn, screen.contains(where: { $0.hasPrefix(prefix) }) {
                _ = try tmux(["send-keys", "-t", session, "C-c"])
                interruptOn = nil
            }
            if let last = screen.last(where: { $0.hasPrefix(marker) }) {
                var lines = screen
                while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
                lines.removeAll { $0.hasPrefix(marker) }
                return (lines, Int32(last.dropFirst(marker.count)) ?? -1)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure(description: "\(command) did not end within \(timeout) in tmux")
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs tmux with `arguments` on the server at socket `server` and returns what it printed. Spawned and reaped here with
    /// posix_spawn and waitpid: Foundation's `Process` missed the exit of a tmux client (which
    /// stayed a zombie) and waited for ever.
    private static func tmux(_ arguments: [String], server: String) throws -> String {
        // into a file, not a pipe: the tmux server that the first call starts keeps the
        // client's descriptors open for as long as it runs
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID()).out")
        defer { try? FileManager.default.removeItem(at: file) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = (["tmux", "-L", server] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, "tmux", &actions, nil, argv, environ) == 0 else {
            throw Failure(
                description: "tmux could not be started: is it installed (scripts/install-deps.sh)?")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw Failure(description: "tmux \(arguments.first ?? "") failed: \(text)")
        }
        return text
    }
}
