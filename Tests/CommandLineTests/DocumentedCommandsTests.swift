import Foundation
import TestSupport
import XCTest

/// Every command the READMEs and the `--help` texts show runs as documented: those that need no
/// Bluetooth run to exit 0; those that need bluetoothd are valid command lines, which with no
/// system bus end as `bluetooth_unavailable` (69), never as a usage error.
final class DocumentedCommandsTests: XCTestCase {
    private let repository = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()

    /// `dfu-update …` and `dfu-sim …` lines of a Markdown file's code blocks (after `swift run`,
    /// without comments).
    private func commands(inMarkdown path: String) throws -> [String] {
        let text = try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
        var inBlock = false
        var found: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock.toggle()
                continue
            }
            guard inBlock, let start = line.range(of: "dfu-update ") ?? line.range(of: "dfu-sim ") else {
                continue
            }
            guard !line.trimmingCharacters(in: .whitespaces).hasPrefix("#") else { continue }
            found.append(String(line[start.lowerBound...]).trimmingCharacters(in: .whitespaces))
        }
        return found
    }

    /// The example lines of a program's `--help` (the indented lines after `Examples:`).
    private func helpExamples(_ program: String, _ arguments: [String]) async throws -> [String] {
        let output = try await ProcessRunner.run(CLIRunner.executable(named: program), arguments + ["--help"])
        let lines = output.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "Examples:") else { return [] }
        return lines[(start + 1)...].prefix { $0.hasPrefix("  ") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    /// `--version`: the release and the commit it was built from (this is a git checkout).
    func testVersionNamesTheCommit() async throws {
        for program in ["dfu-update", "dfu-sim"] {
            let output = try await ProcessRunner.run(CLIRunner.executable(named: program), ["--version"])
            XCTAssertEqual(output.status, 0, program)
            let text = output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertNotNil(
                text.range(
                    of: #"^\d+\.\d+\.\d+ \(commit [0-9a-f]{12}(\+changes)?\)$"#, options: .regularExpression),
                "\(program): \(text)")
        }
    }

    func testEveryDocumentedCommandRunsAsDocumented() async throws {
        var commands = try commands(inMarkdown: "README.md") + commands(inMarkdown: "Firmware/README.md")
        for subcommand in [[], ["flash"], ["fleet"], ["scan"], ["info"], ["inspect"], ["adapters"]] {
            commands += try await helpExamples("dfu-update", subcommand)
        }
        commands += try await helpExamples("dfu-sim", [])
        XCTAssertGreaterThan(commands.count, 15, "\(commands)")
        // the default embedded rollout store of this run, not the user's
        let state = FileManager.default.temporaryDirectory.appendingPathComponent(
            "documented-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        var seen = Set<String>()
        // in the order the documents give them: a rollout is created before its gateways run
        for command in commands where seen.insert(command).inserted {
            let words = command.split(separator: " ").map(String.init)
            // paths in the docs are relative to the repository
            let arguments = words.dropFirst().map {
                $0.hasPrefix("Firmware/") ? repository.appendingPathComponent($0).path : $0
            }
            let offline =
                words[0] == "dfu-update"
                && (words[1] == "inspect" || words.contains("--simulate") || words[1] == "rollout"
                    || (words[1] == "gateway" && words.contains("--simulated-devices")))
            let output = try await ProcessRunner.run(
                CLIRunner.executable(named: words[0]), Array(arguments), timeout: .seconds(120),
                environment: [
                    "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus", "XDG_STATE_HOME": state.path,
                ])
            XCTAssertEqual(output.status, offline ? 0 : 69, "\(command)\n\(output.stderr)")
        }
    }
}
