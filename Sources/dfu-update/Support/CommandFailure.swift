import ArgumentParser
import Foundation

/// A failure that a command reports in the contract's shape: with `--json` one object on stdout,
/// `{"error": {"class": …, "message": …}}`, otherwise the message on stderr; then the exit code.
struct CommandFailure: Error {
    /// The contract's error class, e.g. `invalid_zip` or `file_not_found`.
    var errorClass: String
    /// One line for a person: what failed, where, and what to try.
    var message: String
    var exitCode: ExitCode
    /// Extra members of the `error` object (device errors add `code` and `name`).
    var extra: [(String, JSONValue)] = []

    /// Prints the failure the way the contract asks and returns the exit code to throw.
    func report(json: Bool) -> ExitCode {
        if json {
            let error: [(String, JSONValue)] =
                [("class", .string(errorClass)), ("message", .string(message))] + extra
            Output.line(.object([("error", .object(error))]))
        } else {
            Output.error("error: \(message)")
        }
        return exitCode
    }
}

/// Line-oriented output, flushed at once so that JSON Lines reach a pipe as they happen.
enum Output {
    static func line(_ value: JSONValue) { line(value.serialized()) }

    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
