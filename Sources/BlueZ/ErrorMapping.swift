import DBus
import GATT

/// Turns D-Bus failures into the `GATTError` cases the DFU engine acts on.
extension DBusError {
    /// `operation` says what was attempted ("writing 8ec90001… on C0:DE:…"), `device` which
    /// device it concerned.
    func gattError(_ operation: String, device: String) -> GATTError {
        switch self {
        case .timedOut(let milliseconds):
            return .timeout(operation: operation, seconds: Double(milliseconds) / 1000)
        case .disconnected(let message), .connectionFailed(_, let message):
            return .bluetoothUnavailable("lost the system bus connection (\(message))")
        default: break
        }
        switch name {
        case DBusError.Name.serviceUnknown, DBusError.Name.nameHasNoOwner:
            return .bluetoothUnavailable(BlueZBus.notRunningMessage)
        // bluetoothd is gone and the bus failed to start it again (D-Bus activation of org.bluez)
        case let name where name.hasPrefix(DBusError.Name.spawnPrefix):
            return .bluetoothUnavailable(
                "\(BlueZBus.notRunningMessage) (the bus could not start it: \(message))")
        case DBusError.Name.unknownObject:
            return .disconnected(device: device, reason: "bluetoothd no longer knows the device")
        case "org.bluez.Error.NotReady":
            return .bluetoothUnavailable("the adapter is not ready (\(message)); is it powered on?")
        case "org.bluez.Error.NotConnected":
            return .disconnected(device: device, reason: message)
        case BlueZ.failedError where message == "Not connected":
            return .disconnected(device: device, reason: message)
        case "org.bluez.Error.NotPermitted" where message == "Notify acquired":
            return .operationFailed(
                operation: operation,
                reason:
                    "bluetoothd says that another subscriber holds the notifications (\(name): \(message)): "
                    + "another program has subscribed, or bluetoothd kept a subscription that failed (a stale "
                    + "table or a dropped link; a bluetoothd bug that restarting bluetoothd clears)")
        // bluetoothd's answer to ATT insufficient authentication, encryption or key size
        // (src/gatt-client.c), after its own attempt to raise the link's security failed
        case "org.bluez.Error.NotPermitted" where message == "Not paired":
            return .securityFailed(
                device: device, failure: .securityRequired,
                reason: "\(operation) needs a paired link (ATT insufficient authentication or encryption; "
                    + "bluetoothd: \(message))")
        default:
            return .operationFailed(operation: operation, reason: "\(name): \(message)")
        }
    }
}

/// Maps any error thrown while doing `operation` to a `GATTError`.
func gattError(_ error: any Error, _ operation: String, device: String) -> any Error {
    switch error {
    case let error as DBusError: error.gattError(operation, device: device)
    default: error
    }
}
