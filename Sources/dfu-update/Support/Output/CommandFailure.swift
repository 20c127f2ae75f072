import ArgumentParser
import DFURollout
import DFUSimulator
import DFUSupport
import Foundation
import GATT
import MCUmgr
import NordicDFU
import SimulatorCommandLine

/// A failure as the contract reports it (docs/cli-contract.md, "Errors"): with `--json` one
/// object on stdout, `{"error": {"class": …, "message": …}}`, otherwise `error: message` on
/// stderr; then the class's exit code. `DFUUpdateCommand.main` is the one place that prints it.
struct CommandFailure: Error {
    /// The contract's error class, e.g. `invalid_zip` or `file_not_found`.
    var errorClass: String
    /// One line for a person: what failed, where, and what to try.
    var message: String
    var exitCode: ExitCode

    init(errorClass: String, message: String, exitCode: ExitCode) {
        self.errorClass = errorClass
        self.message = message
        self.exitCode = exitCode
    }

    /// A usage error (exit 64).
    init(usage message: String) {
        self.init(errorClass: "usage", message: message, exitCode: .usage)
    }

    /// An error no command anticipated (`internal`, exit 1): a fault of dfu-update's, reported
    /// on one line as every other failure, and what to do about it.
    init(unanticipated error: any Error) {
        self.init(
            errorClass: "internal",
            message:
                "\(DFUUpdateCommand.messageLine(for: error)) (unanticipated: please report it with the command line and --log-level debug's output)",
            exitCode: .updateFailed)
    }

    /// The contract's report of `error`; `nil` for errors ArgumentParser reports itself.
    init?(_ error: any Error) {
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let error as any PackageReadingError:
            self.init(
                errorClass: error.errorClass, message: error.message,
                exitCode: error.isMissingFile ? .fileNotFound : .invalidPackage)
        case let error as GATTError:
            self.init(
                errorClass: error.errorClass, message: error.description,
                exitCode: error.errorClass == "bluetooth_unavailable" ? .bluetoothUnavailable : .updateFailed)
        case let error as SimulatorConfigurationError:
            self.init(usage: error.description)
        case let error as RolloutStoreError:
            self.init(error)
        case let error as SimulationOptionsError:
            self.init(
                errorClass: error.isMissingFile ? "file_not_found" : "usage", message: error.description,
                exitCode: error.isMissingFile ? .fileNotFound : .usage)
        default:
            return nil
        }
    }

    /// Prints the failure the way the contract asks: `line(json:)`, on stdout with `--json`,
    /// else on stderr.
    func print(json: Bool) {
        if json { Output.line(line(json: true)) } else { Output.error(line(json: false)) }
    }

    /// The one line the contract prints: the error object with `--json`, else `error: message`.
    func line(json: Bool) -> String {
        guard json else { return "error: \(message)" }
        return JSONValue.object([
            ("error", .object([("class", .string(errorClass)), ("message", .string(message))]))
        ]).serialized()
    }
}

extension GATTError {
    /// The contract's class of a Bluetooth failure.
    fileprivate var errorClass: String {
        switch self {
        case .bluetoothUnavailable: "bluetooth_unavailable"
        case .connectionFailed: "connection_failed"
        case .disconnected: "disconnected"
        case .timeout: "timeout"
        case .attributeNotFound: "attribute_not_found"
        case .operationFailed: "operation_failed"
        case .securityFailed(_, .securityRequired, _): "security_required"
        case .securityFailed(_, .authenticationFailed, _): "authentication_failed"
        case .securityFailed(_, .pairingRefused, _): "pairing_refused"
        case .securityFailed(_, .bondLost, _): "bond_lost"
        }
    }
}

/// Line-oriented output, flushed at once so that JSON Lines reach a pipe as they happen.
enum Output {
    static func line(_ value: JSONValue) { line(value.serialized()) }

    static func line(_ text: String) {
        TerminalDisplay.shared.print(text, toStandardOutput: true)
    }

    /// Part of a line on stdout, as it is read (a large `rollout status --json`); the line ends
    /// with the `line` that follows.
    static func part(_ text: String) {
        TerminalDisplay.shared.print(text, toStandardOutput: true, ending: "")
    }

    static func error(_ text: String) {
        TerminalDisplay.shared.print(text)
    }
}
