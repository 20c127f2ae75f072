import GATT

/// One part sent over one DFU protocol, on one connection: the shape Secure DFU
/// (`SecureFirmwareTransfer`) and Legacy DFU (`LegacyFirmwareTransfer`) share. The updater
/// builds it from a connected bootloader, runs it, and on a failure writes `abortRequest` so
/// that the bootloader drops what it holds.
protocol FirmwareTransfer {
    /// Sends the part. Throws a `DFUFailure`; a retryable one leaves the device able to resume
    /// (Secure) or restart (Legacy) on a new connection.
    mutating func run() async throws -> FirmwareTransferOutcome

    /// When the device confirmed the part (link time): its last answer.
    var finishedAt: Duration { get }

    /// What makes the bootloader drop the transfer and reset: Abort (Secure) or Reset (Legacy).
    var abortRequest: [UInt8] { get }

    /// Whether a failure should be followed by `abortRequest` before the updater gives up or
    /// retries. Secure DFU keeps its progress for a resume after a retryable failure.
    func abortsAfter(_ failure: DFUFailure?) -> Bool
}

/// How a transfer ended without throwing.
enum FirmwareTransferOutcome {
    /// The image was sent and accepted; the device validates, activates and resets.
    case sent
    /// The bootloader rejected the init packet on Execute (Secure DFU).
    case initPacketRejected(DFUFailure)
    /// Asked only to finish a part the device holds whole, the transfer found it holding none
    /// of it: the device activated the part before (Secure DFU).
    case notHeld
}

/// The request that makes the device activate a part (Secure DFU's last Execute) went out and
/// its answer did not come: the link went down, or the wait ran out. The device may run the
/// part already; `UpdateRun` looks before anything is sent again.
struct UnansweredActivation: Error {
    /// What happened to the answer.
    let failure: DFUFailure
}
