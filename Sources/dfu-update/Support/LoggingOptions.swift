import ArgumentParser
import Logging

/// `--verbose` and `--log-level`: how much of the library's swift-log output reaches stderr
/// (stdout carries only the command's output).
struct LoggingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log what the command does (--log-level info).")
    var verbose = false

    @Option(
        help: "Log lines from this level on (default: warning).")
    var logLevel: LogLevel?

    /// The level chosen: `--log-level`, else `info` with `--verbose`, else `warning`.
    var level: Logger.Level { logLevel?.level ?? (verbose ? .info : .warning) }

    /// Sends every `Logger` of the process to stderr at ``level``. Called once, before a command runs.
    func bootstrap() {
        let level = level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

/// A subcommand that reports in the contract's shape (docs/cli-contract.md): its `--json` says
/// how a failure is printed, its logging options how much is logged.
protocol ContractCommand: AsyncParsableCommand {
    var json: Bool { get }
    var logging: LoggingOptions { get }
}
