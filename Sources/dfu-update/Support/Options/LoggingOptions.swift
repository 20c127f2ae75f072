import ArgumentParser
import Foundation
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

    /// Sends every `Logger` of the process to stderr at ``level``, above any live progress
    /// (`TerminalDisplay`). Called once, before a command runs.
    func bootstrap() {
        let level = level
        LoggingSystem.bootstrap { label in DisplayLogHandler(label: label, logLevel: level) }
    }
}

/// A swift-log handler that prints through the `TerminalDisplay`: one line per message, with a
/// timestamp, the level, the label and the metadata, as swift-log's stream handler does.
struct DisplayLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        TerminalDisplay.shared.print("\(Self.timestamp()) \(event.level) \(label):\(fields) \(event.message)")
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [Int8](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A subcommand that reports in the contract's shape (docs/cli-contract.md): its `--json` says
/// how a failure is printed, its logging options how much is logged.
protocol ContractCommand: AsyncParsableCommand {
    var json: Bool { get }
    var logging: LoggingOptions { get }
}
