/// A fault the simulated device injects (`--sim-fault SPEC`).
public enum SimulatedFault: Hashable, Sendable, CustomStringConvertible {
    /// The link drops once, when this many bytes of the current image have been received.
    case disconnectAt(bytes: Int)
    /// The n-th notification (or indication) the device sends is lost (1-based).
    case dropNotification(Int)
    /// The n-th checksum the device reports (Calculate Checksum response or packet receipt
    /// notification, Secure DFU) is wrong, once (1-based).
    case crcError(Int)
    /// The first k connection attempts fail.
    case rejectConnect(Int)
    /// Every 4 KiB page erase takes this long instead of the nRF52's 85 ms.
    case slowFlash(Duration)

    /// Parses `disconnect-at=BYTES`, `drop-notification=N`, `crc-error=N`, `reject-connect=K` or
    /// `slow-flash=MS`.
    public init(parsing spec: String) throws(SimulatorConfigurationError) {
        let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let value = Int(parts[1]) else {
            throw SimulatorConfigurationError(
                "fault '\(spec)' is not NAME=NUMBER; use one of \(Self.names.joined(separator: ", "))")
        }
        let minimum = parts[0] == "disconnect-at" || parts[0] == "slow-flash" ? 0 : 1
        guard value >= minimum else {
            throw SimulatorConfigurationError("fault '\(spec)': the number must be at least \(minimum)")
        }
        switch parts[0] {
        case "disconnect-at": self = .disconnectAt(bytes: value)
        case "drop-notification": self = .dropNotification(value)
        case "crc-error": self = .crcError(value)
        case "reject-connect": self = .rejectConnect(value)
        case "slow-flash": self = .slowFlash(.milliseconds(value))
        default:
            throw SimulatorConfigurationError(
                "unknown fault '\(parts[0])'; use one of \(Self.names.joined(separator: ", "))")
        }
    }

    /// The fault names the parser accepts.
    public static let names = [
        "disconnect-at", "drop-notification", "crc-error", "reject-connect", "slow-flash",
    ]

    /// The spec this fault was parsed from.
    public var description: String {
        switch self {
        case .disconnectAt(let bytes): "disconnect-at=\(bytes)"
        case .dropNotification(let n): "drop-notification=\(n)"
        case .crcError(let n): "crc-error=\(n)"
        case .rejectConnect(let k): "reject-connect=\(k)"
        case .slowFlash(let duration): "slow-flash=\(duration.nanoseconds / 1_000_000)"
        }
    }
}

/// A simulated device option that cannot be used; the message says which and what is accepted.
public struct SimulatorConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
