/// A fault the simulated device injects (`--sim-fault SPEC`).
public enum SimulatedFault: Hashable, Sendable, CustomStringConvertible {
    /// The link drops once, when this many bytes of the current image have been received.
    case disconnectAt(bytes: Int)
    /// The n-th notification (or indication) the device sends is lost (1-based).
    case dropNotification(Int)
    /// The n-th checksum the device reports (Calculate Checksum response or packet receipt
    /// notification, Secure DFU) is wrong, once (1-based).
    case crcError(Int)
    /// The answer to the request that completes the n-th image is lost (1-based): Secure DFU's
    /// last Execute (the device activates the image and resets without answering, as a real
    /// bootloader whose answer goes down with the link), Legacy DFU's Validate.
    case dropFinalAnswer(Int)
    /// The first k connection attempts fail.
    case rejectConnect(Int)
    /// Every 4 KiB page erase takes this long instead of the nRF52's 85 ms.
    case slowFlash(Duration)
    /// SMP device: an image swapped in for a test fails to boot (it resets before confirming
    /// itself), so MCUboot swaps the previous image back at once.
    case revertAfterTest

    /// The fault as `--sim-fault` spells it.
    public var description: String {
        switch self {
        case .disconnectAt(let bytes): "disconnect-at=\(bytes)"
        case .dropNotification(let n): "drop-notification=\(n)"
        case .crcError(let n): "crc-error=\(n)"
        case .dropFinalAnswer(let n): "drop-final-answer=\(n)"
        case .rejectConnect(let k): "reject-connect=\(k)"
        case .slowFlash(let duration): "slow-flash=\(duration.nanoseconds / 1_000_000)"
        case .revertAfterTest: "revert-after-test"
        }
    }
}

/// A simulated device option that cannot be used; the message says which and what is accepted.
public struct SimulatorConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
