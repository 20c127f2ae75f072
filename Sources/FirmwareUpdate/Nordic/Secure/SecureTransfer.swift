import GATT
import NordicDFU

/// Sends one part over Secure DFU (protocol doc §2.6–2.8): the init packet as the command
/// object, then the image in data objects, resuming from what the device already holds.
struct SecureFirmwareTransfer: FirmwareTransfer {
    let session: UpdateSession
    /// The update's run state, for its `pacing`: what was learned of the device's pace, kept for
    /// the next objects and parts.
    let runState: NordicRunState
    let part: DFUImage
    let controlPoint: SecureControlPoint
    let streamer: PacketStreamer
    let meter: ProgressMeter
    /// Whether the device's progress may be reused (false after the user disabled resume).
    let resumeAllowed: Bool
    /// Only finish a part the device holds whole (its last Execute may not have arrived before
    /// the link went down); send nothing of one it does not hold (`.notHeld`).
    let finishesHeldPartOnly: Bool
    private(set) var finishedAt: Duration = .zero

    /// The data object size of every Nordic Secure bootloader (SDK 12–17: one flash page of an
    /// nRF52), for the receipt interval set before the init packet; Select (data) confirms it.
    static let usualDataObjectSize = 4096
    /// How many times the init packet is sent before a checksum mismatch is final: as a data
    /// object (`DataObjectRecovery`).
    static let checksumAttempts = DataObjectRecovery.checksumAttempts

    init(
        session: UpdateSession, runState: NordicRunState, part: DFUImage, controlPoint: SecureControlPoint,
        streamer: PacketStreamer, meter: ProgressMeter, finishesHeldPartOnly: Bool = false
    ) {
        self.session = session
        self.runState = runState
        self.part = part
        self.controlPoint = controlPoint
        self.streamer = streamer
        self.meter = meter
        self.finishesHeldPartOnly = finishesHeldPartOnly
        self.resumeAllowed = finishesHeldPartOnly || !session.options.nordic.disableResume
    }

    var options: DFUOptions { session.options }

    var abortRequest: [UInt8] { SecureDFURequest.abort.encoded }

    /// A retryable failure keeps the device's progress for the resume.
    func abortsAfter(_ failure: DFUFailure?) -> Bool { !(failure?.isRetryable ?? false) }

    mutating func run() async throws -> FirmwareTransferOutcome {
        guard let initPacket = part.initPacket else {
            throw session.failure(.initPacketRequired, "the \(part.kind) image has no init packet")
        }
        if finishesHeldPartOnly, try await !holdsWhole(initPacket) { return .notHeld }
        if let rejection = try await sendInitPacket(initPacket) { return .initPacketRejected(rejection) }
        try await sendImage()
        finishedAt = session.linkTime.now()
        return .sent
    }

    // MARK: Command object

    /// Whether the device holds all of `initPacket` as its command object: after an activation
    /// it holds nothing (the SDK clears its progress), before one all of it.
    private func holdsWhole(_ initPacket: [UInt8]) async throws -> Bool {
        let selected = try await controlPoint.require(.select(.command), timeout: options.notificationTimeout)
        guard case .selected(_, let offset, let crc) = selected else { return false }
        return Int(offset) == initPacket.count && crc == CRC32.checksum(initPacket)
    }

    /// Sends (or resumes) and executes the init packet. Returns the failure when the bootloader
    /// rejects it on Execute.
    private func sendInitPacket(_ initPacket: [UInt8]) async throws -> DFUFailure? {
        let selected = try await controlPoint.require(.select(.command), timeout: options.notificationTimeout)
        guard case .selected(let maximumSize, let offset, let crc) = selected else {
            throw session.failure(.unsupportedResponse, "Select (command) returned no object information")
        }
        guard initPacket.count <= maximumSize else {
            throw session.failure(
                .remoteSecureDFUInsufficientResources,
                "the init packet (\(initPacket.count) bytes) exceeds the bootloader's \(maximumSize)-byte limit"
            )
        }
        // Receipts are set once, as the data objects will want them (`receiptInterval`); the
        // init packet streams under the same count, which Create restarts.
        try await controlPoint.require(
            .setPacketReceiptNotification(receiptInterval(objectSize: Self.usualDataObjectSize)),
            timeout: options.notificationTimeout)
        let held = Int(offset)
        if resumeAllowed, held > 0, held <= initPacket.count, CRC32.checksum(initPacket[0..<held]) == crc {
            session.log(.info, "the device holds \(held) of \(initPacket.count) init packet bytes; resuming")
            if try await holdsExactly(initPacket, afterStreaming: initPacket[held...]) {
                return try await executeCommand()
            }
        }
        for attempt in 1...Self.checksumAttempts {
            // streamed behind the Create's write response, as a data object is
            let create = SecureDFURequest.create(.command, size: UInt32(initPacket.count))
            try await controlPoint.post(create)
            if try await holdsExactly(initPacket, afterStreaming: initPacket[...], answering: create) {
                return try await executeCommand()
            }
            session.log(
                .info, "init packet checksum mismatch (attempt \(attempt) of \(Self.checksumAttempts))")
        }
        throw session.failure(.crcError, "the init packet arrived corrupted \(Self.checksumAttempts) times")
    }

    /// Streams `rest` of the init packet and says whether the device then holds all of it; the
    /// answer to `create`, posted before, is taken on the way.
    private func holdsExactly(
        _ initPacket: [UInt8], afterStreaming rest: ArraySlice<UInt8>,
        answering create: SecureDFURequest? = nil
    ) async throws -> Bool {
        let (offset, crc) = try await streamAndCheck(rest, meter: nil, answering: create)
        return offset == initPacket.count && crc == CRC32.checksum(initPacket)
    }

    private func executeCommand() async throws -> DFUFailure? {
        let outcome = try await controlPoint.send(.execute, timeout: options.responseTimeout)
        if case .failure(let result, let extended) = outcome {
            return controlPoint.remoteFailure(.execute, result: result, extended: extended)
        }
        return nil
    }

    /// Executes the current data object; after a resume, 0x08 means it had been executed already.
    /// The object that completes the image makes the device activate it and reset: an answer
    /// lost then (the link down, or no answer in time) is an `UnansweredActivation`.
    func executeData(afterResume: Bool, completesImage: Bool) async throws {
        let outcome: SecureDFUResponse.Outcome
        do {
            outcome = try await controlPoint.send(.execute, timeout: options.responseTimeout)
        } catch let failure as DFUFailure where completesImage && failure.isRetryable {
            throw UnansweredActivation(failure: failure)
        }
        switch outcome {
        case .failure(.operationNotPermitted, _) where afterResume:
            session.log(.info, "the object was executed before the link dropped")
        case .failure(let result, let extended):
            throw controlPoint.remoteFailure(.execute, result: result, extended: extended)
        default:
            break
        }
    }
}
