/// Where an update stands (protocol doc §6.2). Raw values match the Nordic libraries'.
public enum DFUState: Int, Sendable, CaseIterable, CustomStringConvertible {
    case connecting = 0
    case starting = 1
    case enablingDfuMode = 2
    case uploading = 3
    case validating = 4
    case disconnecting = 5
    case completed = 6
    case aborted = 7

    public var description: String {
        switch self {
        case .connecting: "Connecting"
        case .starting: "Starting"
        case .enablingDfuMode: "Enabling DFU Mode"
        case .uploading: "Uploading"
        case .validating: "Validating"
        case .disconnecting: "Disconnecting"
        case .completed: "Completed"
        case .aborted: "Aborted"
        }
    }

    /// The name machine output uses (docs/cli-contract.md): `connecting`, `enabling_dfu_mode`, …
    public var identifier: String {
        switch self {
        case .connecting: "connecting"
        case .starting: "starting"
        case .enablingDfuMode: "enabling_dfu_mode"
        case .uploading: "uploading"
        case .validating: "validating"
        case .disconnecting: "disconnecting"
        case .completed: "completed"
        case .aborted: "aborted"
        }
    }
}
