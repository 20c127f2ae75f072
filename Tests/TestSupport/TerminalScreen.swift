import Foundation
import XCTest

/// A command run in a pseudo-terminal of tmux, as a person runs it, and the screen it leaves:
/// what the terminal shows once the command ended, with every redraw and erase applied.
public enum TerminalScreen {
    /// Runs `command` (a shell command line) in a `columns`×`rows` terminal and returns the
    /// screen's lines once it ended (trailing blank lines dropped) and its exit status. tmux is
    /// required (scripts/install-deps.sh installs it): without it the test fails, it never skips.
    public static func run(
        _ command: String, in folder: URL, columns: Int = 100, rows: Int = 60,
        timeout: Duration = .seconds(90)
    ) async throws -> (screen: [String], status: Int32) {
        let session = "dfu-test-\(UUID().uuidString.prefix(8))"
        let marker = "EXIT-STATUS="
        let script = "cd '\(folder.path)' && \(command); echo \(marker)$?; sleep 600"
        try tmux(["new-session", "-d", "-s", session, "-x", String(columns), "-y", String(rows), script])
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let screen = try tmux(["capture-pane", "-p", "-t", session]).split(
                separator: "\n", omittingEmptySubsequences: false
            ).map(String.init)
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

    @discardableResult
    private static func tmux(_ arguments: [String]) throws -> String {
        // into a file, not a pipe: the tmux server that the first call starts keeps the
        // client's descriptors open for as long as it runs
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID()).out")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try FileHandle(forWritingTo: file)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tmux", "-L", "dfu-tests"] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failure(description: "tmux \(arguments.first ?? "") failed (is tmux installed?): \(text)")
        }
        return text
    }
}
