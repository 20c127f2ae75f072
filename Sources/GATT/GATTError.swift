import DFUSupport

/// Why a GATT operation failed. Transport modules map their own errors onto these cases so that
/// the DFU engine can tell a lost link from a refused write without knowing the transport.
public enum GATTError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No adapter, adapter powered off, or the Bluetooth service is not running.
    case bluetoothUnavailable(String)
    /// The device was not found while scanning, or the connection attempt failed.
    case connectionFailed(device: String, reason: String)
    /// The link dropped (remote reset, out of range, local disconnect).
    case disconnected(device: String, reason: String)
    /// A wait ran out of time; `operation` says which.
    case timeout(operation: String, seconds: Double)
    /// The device does not have the service or characteristic that was asked for.
    case attributeNotFound(String)
    /// A read, write or subscription was refused (ATT error, not permitted, transport error).
    case operationFailed(operation: String, reason: String)
    /// The device wants a more secure link than this host could give it: pairing failed, or
    /// was not possible, or the device no longer knows the bond this host holds.
    case securityFailed(device: String, failure: GATTSecurityFailure, reason: String)

    public var description: String {
        switch self {
        case .bluetoothUnavailable(let reason):
            "Bluetooth is unavailable: \(reason)"
        case .connectionFailed(let device, let reason):
            "could not connect to \(device): \(reason)"
        case .disconnected(let device, let reason):
            "\(device) disconnected: \(reason)"
        case .timeout(let operation, let seconds):
            "timed out after \(seconds.secondsForPeople) waiting for \(operation)"
        case .attributeNotFound(let what):
            "not found on the device: \(what)"
        case .operationFailed(let operation, let reason):
            "\(operation) failed: \(reason)"
        case .securityFailed(let device, _, let reason):
            "\(device) refused: \(reason)"
        }
    }
}

/// Why a device and this host did not reach the security the device asks for.
public enum GATTSecurityFailure: String, Sendable, Equatable, CaseIterable {
    /// The device refuses the operation on an unpaired (or not authenticated) link, and this
    /// host has no way to pair as it asks: no passkey, or a passkey source that failed.
    case securityRequired
    /// Pairing failed its check: a wrong passkey (or the device's confirmation did not match).
    case authenticationFailed
    /// The device (or bluetoothd) rejected or canceled the pairing, or it timed out.
    case pairingRefused
    /// This host holds a bond the device does not know any more (it was reset or erased its keys).
    case bondLost
}
