import ArgumentParser

/// An error for a command to report its own way: with `--json`, one object on stdout, without,
/// one line on stderr.
public struct UnreportedError: Sendable {
    /// What was thrown.
    public var error: any Error
    /// Whether `--json` stands on the command line (before any `--`).
    public var json: Bool
    /// The error as one usage line (`…; see --help`), when it is a usage error (exit 64).
    public var usageLine: String?
}

extension AsyncParsableCommand {
    /// `main()` as `dfu-update` and `dfu-sim` both run it: parses the process's arguments, runs
    /// the async or sync command, and ends the process. `--json` is looked for before parsing,
    /// so that a usage error can be reported as JSON too; `check` sees the arguments first, and
    /// `started` the parsed command before it runs. An `ExitCode` ends the process as it is
    /// (the command has reported already), help and `--version` as ArgumentParser prints them;
    /// every other error goes to `report`, which prints it and returns the exit code. An option
    /// the command does not know is the error before any of its `OptionChecks`.
    public static func runReporting(
        check: @Sendable ([String]) throws -> Void = { _ in },
        started: @Sendable (any ParsableCommand) -> Void = { _ in },
        report: @Sendable (UnreportedError) -> ExitCode
    ) async -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let json = arguments.prefix { $0 != "--" }.contains("--json")
        do {
            try check(arguments)
            _ = try OptionCheckPass.$isDeferred.withValue(true) { try parseAsRoot(arguments) }
            var command = try parseAsRoot(arguments)
            started(command)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            exit(withError: nil)
        } catch let code as ExitCode {
            exit(withError: code)
        } catch let error where exitCode(for: error) == .success {
            exit(withError: error)
        } catch {
            exit(
                withError: report(UnreportedError(error: error, json: json, usageLine: usageLine(for: error)))
            )
        }
    }
}
