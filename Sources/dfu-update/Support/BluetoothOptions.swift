import ArgumentParser
import BlueZ
import GATT

/// `--adapter`, shared by every command that uses Bluetooth.
struct BluetoothOptions: ParsableArguments {
    @Option(help: "The Bluetooth adapter to use: hciN or its address (default: the first one).")
    var adapter: String?

    /// The BlueZ central on the chosen adapter.
    func central() async throws -> BlueZCentral {
        try await BlueZCentral(adapter: adapter)
    }
}

extension GATTError {
    /// This error as the contract reports it: Bluetooth unavailable is exit 69, anything that
    /// went wrong with the device exit 1.
    var commandFailure: CommandFailure {
        switch self {
        case .bluetoothUnavailable:
            CommandFailure(
                errorClass: "bluetooth_unavailable", message: description, exitCode: .bluetoothUnavailable)
        case .connectionFailed:
            CommandFailure(errorClass: "connection_failed", message: description, exitCode: .updateFailed)
        case .disconnected:
            CommandFailure(errorClass: "disconnected", message: description, exitCode: .updateFailed)
        case .timeout:
            CommandFailure(errorClass: "timeout", message: description, exitCode: .updateFailed)
        case .attributeNotFound:
            CommandFailure(errorClass: "attribute_not_found", message: description, exitCode: .updateFailed)
        case .operationFailed:
            CommandFailure(errorClass: "operation_failed", message: description, exitCode: .updateFailed)
        }
    }
}

/// Runs a command body, turning a `GATTError` (or `CommandFailure`) into the contract's report
/// and exit code.
func reportingFailures(json: Bool, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as GATTError {
        throw error.commandFailure.report(json: json)
    } catch let failure as CommandFailure {
        throw failure.report(json: json)
    }
}
