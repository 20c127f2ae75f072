import GATT

/// Sends one part over Secure DFU (protocol doc §2.6–2.8): the init packet as the command
/// object, then the image in data objects, resuming from what the device already holds.
struct SecureDFUExecutor {
    let session: UpdateSession
    let part: DFUImage
    let controlPoint: SecureControlPoint
    let sender: PacketSender
    var meter: ProgressMeter
    /// Whether the device's progress may be reused (false after the user disabled resume).
    let resumeAllowed: Bool

    /// How many times an object is sent before a checksum mismatch is final.
    static let checksumAttempts = 3
    /// How many times, per object, the engine continues after the device reported fewer bytes
    /// than were sent, before it gives up with `bytesLost`.
    static let lostBytesRecoveries = 8

    enum Outcome {
        /// The image was sent and executed; the device validates, activates and resets.
        case sent
        /// The bootloader rejected the init packet on Execute.
        case initPacketRejected(DFUFailure)
    }

    private var options: DFUOptions { session.options }

    mutating func run() async throws -> Outcome {
        guard let initPacket = part.initPacket else {
            throw session.failure(.initPacketRequired, "the \(part.kind) image has no init packet")
        }
        if let rejection = try await sendInitPacket(initPacket) { return .initPacketRejected(rejection) }
        let prn = options.packetReceiptNotifications ?? 0
        try await controlPoint.require(
            .setPacketReceiptNotification(prn), timeout: options.notificationTimeout)
        try await sendImage(prn: Int(prn))
        return .sent
    }

    // MARK: Command object

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
        let held = Int(offset)
        if resumeAllowed, held > 0, held <= initPacket.count, CRC32.checksum(initPacket[0..<held]) == crc {
            session.log(.info, "the device holds \(held) of \(initPacket.count) init packet bytes; resuming")
            if held < initPacket.count {
                try await controlPoint.require(
                    .setPacketReceiptNotification(0), timeout: options.notificationTimeout)
                try await sendPackets(initPacket[held...], firmware: false)
            }
            if try await checksumMatches(initPacket) {
                return try await executeCommand()
            }
        }
        try await controlPoint.require(.setPacketReceiptNotification(0), timeout: options.notificationTimeout)
        for attempt in 1...Self.checksumAttempts {
            try await controlPoint.require(
                .create(.command, size: UInt32(initPacket.count)), timeout: options.responseTimeout)
            try await sendPackets(initPacket[...], firmware: false)
            if try await checksumMatches(initPacket) { return try await executeCommand() }
            session.log(
                .warning, "init packet checksum mismatch (attempt \(attempt) of \(Self.checksumAttempts))")
        }
        throw session.failure(.crcError, "the init packet arrived corrupted \(Self.checksumAttempts) times")
    }

    private func checksumMatches(_ bytes: [UInt8]) async throws -> Bool {
        let outcome = try await controlPoint.require(.calculateChecksum, timeout: options.notificationTimeout)
        guard case .checksum(let offset, let crc) = outcome else {
            throw session.failure(.unsupportedResponse, "Calculate Checksum returned no checksum")
        }
        return Int(offset) == bytes.count && crc == CRC32.checksum(bytes)
    }

    private func executeCommand() async throws -> DFUFailure? {
        let outcome = try await controlPoint.send(.execute, timeout: options.responseTimeout)
        if case .failure(let result, let extended) = outcome {
            return controlPoint.remoteFailure(.execute, result: result, extended: extended)
        }
        return nil
    }

    // MARK: Data objects

    private mutating func sendImage(prn: Int) async throws {
        let image = part.firmware
        let selected = try await controlPoint.require(.select(.data), timeout: options.notificationTimeout)
        guard case .selected(let maximum, let heldOffset, let heldCRC) = selected, maximum > 0 else {
            throw session.failure(.unsupportedResponse, "Select (data) returned no object size")
        }
        let objectSize = Int(maximum)
        let held = Int(heldOffset)
        var resumeOffset = 0
        var continuePartialObject = false
        if resumeAllowed, held > 0, held <= image.count, CRC32.checksum(image[0..<held]) == heldCRC {
            resumeOffset = held
            continuePartialObject = held % objectSize != 0 && held != image.count
            session.log(.info, "the device holds \(held) of \(image.count) bytes; resuming")
        } else if held > 0 {
            // The partial object is corrupt or belongs to another image: Create rolls it back.
            resumeOffset = resumeAllowed && held <= image.count ? (held - 1) / objectSize * objectSize : 0
        }
        session.state(.uploading)
        if let report = meter.start(at: resumeOffset) { session.emit(.progress(report)) }

        if resumeOffset > 0, !continuePartialObject,
            resumeOffset % objectSize == 0 || resumeOffset == image.count
        {
            // The object ending here is complete; it may not have been executed yet (§2.7).
            if resumeOffset == image.count { session.state(.validating) }
            try await executeData(afterResume: true)
            if resumeOffset == image.count { return }
        }

        var objectStart = continuePartialObject ? resumeOffset / objectSize * objectSize : resumeOffset
        var crcAtObjectStart = CRC32.checksum(image[0..<objectStart])
        var firstObject = true
        while objectStart < image.count {
            let objectEnd = min(objectStart + objectSize, image.count)
            try await sendObject(
                objectStart..<objectEnd, crcAtStart: crcAtObjectStart,
                continuingFrom: continuePartialObject ? resumeOffset : nil, prn: prn, firstObject: firstObject
            )
            if objectEnd == image.count { session.state(.validating) }
            try await executeData(afterResume: false)
            var crc = CRC32(resumingFrom: crcAtObjectStart)
            crc.update(image[objectStart..<objectEnd])
            crcAtObjectStart = crc.value
            objectStart = objectEnd
            continuePartialObject = false
            firstObject = false
        }
    }

    /// Creates (unless continuing a partial one), streams and checksums one data object, until
    /// the device holds exactly its bytes.
    private mutating func sendObject(
        _ range: Range<Int>, crcAtStart: UInt32, continuingFrom: Int?, prn: Int, firstObject: Bool
    ) async throws {
        let image = part.firmware
        func crcUpTo(_ offset: Int) -> UInt32 {
            var crc = CRC32(resumingFrom: crcAtStart)
            crc.update(image[range.lowerBound..<offset])
            return crc.value
        }
        var from = continuingFrom ?? range.lowerBound
        var needsCreate = continuingFrom == nil
        var corruptAttempts = 0
        var recoveries = 0
        var isFirst = firstObject
        while true {
            if needsCreate {
                try await controlPoint.require(
                    .create(.data, size: UInt32(range.count)), timeout: options.responseTimeout)
                let delay =
                    (isFirst ? options.firstDataObjectDelay : .zero)
                    + max(options.dataObjectPreparationDelay, session.learnedPreparationDelay)
                if delay > .zero { try await session.linkTime.sleep(for: delay) }
                isFirst = false
                from = range.lowerBound
            }
            try await stream(
                image[from..<range.upperBound], prn: prn, packetsAlreadySent: needsCreate ? 0 : nil)
            let outcome = try await controlPoint.require(
                .calculateChecksum, timeout: options.notificationTimeout)
            guard case .checksum(let offsetValue, let crc) = outcome else {
                throw session.failure(.unsupportedResponse, "Calculate Checksum returned no checksum")
            }
            let offset = Int(offsetValue)
            if offset == range.upperBound, crc == crcUpTo(offset) { return }
            if needsCreate { learnSlowerFlash() }
            if offset >= range.lowerBound, offset < range.upperBound, crc == crcUpTo(offset) {
                // Packets were lost (a full flash queue drops them silently): send the rest.
                recoveries += 1
                guard recoveries <= Self.lostBytesRecoveries else {
                    throw session.failure(
                        .bytesLost,
                        "the device kept losing packets of the object at offset \(range.lowerBound)")
                }
                session.log(
                    .warning,
                    "the device holds \(offset) bytes, \(range.upperBound - offset) were lost; resending them"
                )
                from = offset
                needsCreate = false
                continue
            }
            corruptAttempts += 1
            session.log(
                .warning,
                "checksum mismatch on the object at offset \(range.lowerBound) (attempt \(corruptAttempts) of \(Self.checksumAttempts))"
            )
            guard corruptAttempts < Self.checksumAttempts else {
                throw session.failure(
                    .crcError,
                    "the object at offset \(range.lowerBound) arrived corrupted \(Self.checksumAttempts) times"
                )
            }
            needsCreate = true
        }
    }

    /// An object that arrived incomplete or corrupt right after Create usually means the flash
    /// was still being erased and the bootloader dropped packets: wait longer after each Create
    /// from now on (doubling, from 100 ms up to 2 s).
    private func learnSlowerFlash() {
        let learned = min(max(session.learnedPreparationDelay * 2, .milliseconds(100)), .seconds(2))
        guard learned > session.learnedPreparationDelay else { return }
        session.learnedPreparationDelay = learned
        session.log(.info, "waiting \(learned) after each Create from now on, for the flash erase")
    }

    /// Executes the current data object; after a resume, 0x08 means it had been executed already.
    private func executeData(afterResume: Bool) async throws {
        let outcome = try await controlPoint.send(.execute, timeout: options.responseTimeout)
        switch outcome {
        case .failure(.operationNotPermitted, _) where afterResume:
            session.log(.info, "the object was executed before the link dropped")
        case .failure(let result, let extended):
            throw controlPoint.remoteFailure(.execute, result: result, extended: extended)
        default:
            break
        }
    }

    /// Streams `bytes` (part of the current object). With PRNs on, waits for each receipt
    /// notification and stops early when the device reports less than was sent, leaving the
    /// recovery to the checksum that follows. `packetsAlreadySent` is the device's PRN counter
    /// position, `nil` when unknown (then receipts are not awaited).
    private mutating func stream(_ bytes: ArraySlice<UInt8>, prn: Int, packetsAlreadySent: Int?) async throws
    {
        let batchPackets = prn > 0 && packetsAlreadySent != nil ? prn : 16
        var start = bytes.startIndex
        while start < bytes.endIndex {
            try await session.controller.checkpoint()
            let end = min(start + batchPackets * sender.packetSize, bytes.endIndex)
            try await sendPackets(bytes[start..<end], firmware: true)
            let sentUpTo = end
            start = end
            if let report = meter.update(sentUpTo) { session.emit(.progress(report)) }
            guard prn > 0, packetsAlreadySent != nil, sender.packets(for: end - bytes.startIndex) % prn == 0
            else {
                continue
            }
            do {
                let receipt = try await controlPoint.packetReceipt(timeout: options.notificationTimeout)
                if receipt.offset != sentUpTo {
                    session.log(.warning, "receipt for \(receipt.offset) bytes, \(sentUpTo) sent")
                    return
                }
            } catch let failure as DFUFailure where failure.error == .receivingNotificationFailed {
                session.log(.warning, "a packet receipt notification did not arrive; asking for the checksum")
                return
            }
        }
    }

    /// Writes packets, bounded in real time; firmware bytes count towards the result.
    private func sendPackets(_ bytes: ArraySlice<UInt8>, firmware: Bool) async throws {
        let sender = sender
        let counter = firmware ? session.firmwareBytesWritten : nil
        let limit = options.notificationTimeout
        do {
            try await withRealTimeout(limit, waitingFor: "packet writes") {
                try await sender.send(bytes, counter: counter)
            }
        } catch {
            throw session.mapped(error, during: .writingCharacteristicFailed)
        }
    }
}
