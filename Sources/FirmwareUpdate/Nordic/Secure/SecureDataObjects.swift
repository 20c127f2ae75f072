import DFUSupport
import GATT
import NordicDFU

/// The image, in data objects (protocol doc §2.7).
extension SecureFirmwareTransfer {
    func sendImage() async throws {
        let image = part.firmware
        let selected = try await controlPoint.require(.select(.data), timeout: options.notificationTimeout)
        guard case .selected(let maximum, let heldOffset, let heldCRC) = selected, maximum > 0 else {
            throw session.failure(.unsupportedResponse, "Select (data) returned no object size")
        }
        let objectSize = Int(maximum)
        let interval = receiptInterval(objectSize: objectSize)
        if Int(interval) != controlPoint.channel.ledger.interval || controlPoint.channel.ledger.isUncertain {
            try await controlPoint.require(
                .setPacketReceiptNotification(interval), timeout: options.notificationTimeout)
        }
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
            try await executeData(afterResume: true, completesImage: resumeOffset == image.count)
            if resumeOffset == image.count { return }
        }

        var objectStart = continuePartialObject ? resumeOffset / objectSize * objectSize : resumeOffset
        var crcAtObjectStart = CRC32.checksum(image[0..<objectStart])
        var isFirstObject = true
        while objectStart < image.count {
            let objectEnd = min(objectStart + objectSize, image.count)
            try await sendObject(
                objectStart..<objectEnd, crcAtStart: crcAtObjectStart,
                continuingFrom: continuePartialObject ? resumeOffset : nil, isFirstObject: isFirstObject)
            if objectEnd == image.count { session.state(.validating) }
            try await executeData(afterResume: false, completesImage: objectEnd == image.count)
            var crc = CRC32(resumingFrom: crcAtObjectStart)
            crc.update(image[objectStart..<objectEnd])
            crcAtObjectStart = crc.value
            objectStart = objectEnd
            continuePartialObject = false
            isFirstObject = false
        }
    }

    /// Packets per receipt: the user's choice, or by default the packets of one object, so that
    /// the receipt for an object's last packet carries the offset and CRC that Calculate
    /// Checksum would ask for — one round trip fewer per object. None once the device has shown
    /// that it does not send them (`SecurePacing.givesUpDefaultReceipts`).
    func receiptInterval(objectSize: Int) -> UInt16 {
        let chosen = options.nordic.packetReceiptNotifications
        if runState.pacing.givesUpDefaultReceipts(chosen: chosen) { return 0 }
        return chosen ?? UInt16(clamping: streamer.packets(for: objectSize))
    }

    /// Creates (unless continuing a partial one), streams and checks one data object, until the
    /// device holds exactly its bytes: the I/O of each try, judged by `DataObjectRecovery`.
    private func sendObject(
        _ range: Range<Int>, crcAtStart: UInt32, continuingFrom: Int?, isFirstObject: Bool
    ) async throws {
        let image = part.firmware
        /// Whether `crc` is the image's from the object's start up to `offset`.
        func crcMatches(_ crc: UInt32, upTo offset: Int) -> Bool {
            guard range.lowerBound <= offset, offset <= range.upperBound else { return false }
            var expected = CRC32(resumingFrom: crcAtStart)
            expected.update(image[range.lowerBound..<offset])
            return expected.value == crc
        }
        var recovery = DataObjectRecovery(range: range, continuingFrom: continuingFrom)
        var waitsForFirstObject = isFirstObject
        while true {
            var waited = recovery.waitBeforeStream
            var createRoundTrip: Duration = .zero
            var unanswered: SecureDFURequest?
            if recovery.needsCreate {
                let create = SecureDFURequest.create(.data, size: UInt32(range.count))
                waited =
                    (waitsForFirstObject ? options.nordic.firstDataObjectDelay : .zero)
                    + max(options.nordic.dataObjectPreparationDelay, runState.pacing.flashWait.afterCreate)
                waitsForFirstObject = false
                let requested = session.linkTime.now()
                try await controlPoint.post(create)
                if waited > .zero {
                    // a wait counts from the answer: the device has then started the erase
                    try await controlPoint.requireAnswer(to: create, timeout: options.responseTimeout)
                } else {
                    // Without a wait the packets go once the device has the Create (its write
                    // response): the bootloader handles them after it, and its answer comes
                    // before their receipts ("Streaming behind Create", docs/engine.md).
                    unanswered = create
                }
                createRoundTrip = session.linkTime.now() - requested
            }
            if waited > .zero { try await session.linkTime.sleep(for: waited) }
            let streamStart = session.linkTime.now()
            let (offset, crc) = try await streamAndCheck(
                image[recovery.from..<range.upperBound], meter: meter, answering: unanswered)
            let (decision, loss) = recovery.judge(
                DataObjectRecovery.Try(
                    heldOffset: offset, crcMatches: crcMatches(crc, upTo: offset), waited: waited,
                    createRoundTrip: createRoundTrip, streamDuration: session.linkTime.now() - streamStart))
            if let loss { learnSlowerFlash(loss, firstObjectOfPart: isFirstObject) }
            // the tail a busy flash dropped, sent again, is the device's pace, not a fault
            session.tally.firmwareWrites.withLock {
                $0.pacing = decision.resendsTail && (loss != nil || $0.pacing)
            }
            switch decision {
            case .complete(let wasClean):
                if wasClean { runState.pacing.flashWait.learnCleanObject() }
                return
            case .resendTail(let lost):
                session.log(
                    .info,
                    "the device holds \(offset) bytes, \(lost) were lost; "
                        + "resending them after \(recovery.waitBeforeStream.secondsForPeople)")
            case .createAgainAfterLoss:
                session.log(
                    .info,
                    "the device holds \(offset) bytes of the object at offset \(range.lowerBound), "
                        + "with packets missing; creating it again")
            case .createAgainAfterMismatch(let attempt):
                session.log(
                    .info,
                    "checksum mismatch on the object at offset \(range.lowerBound) "
                        + "(attempt \(attempt) of \(DataObjectRecovery.checksumAttempts))")
            case .fail(let error, let detail):
                throw session.failure(error, detail)
            }
        }
    }

    /// Streams `bytes` (object offsets) and returns what the device then holds of the current
    /// object: from the receipt for the last packet when one came, otherwise from Calculate
    /// Checksum. A receipt that shows fewer bytes than were sent stops the stream early; the
    /// checksum then says where to go on. `meter` counts firmware bytes (none for the init
    /// packet). The answer to `unanswered`, a request posted before the stream (Create), is
    /// taken before the first receipt or the checksum; a failure there throws.
    func streamAndCheck(
        _ bytes: ArraySlice<UInt8>, meter: ProgressMeter?, answering unanswered: SecureDFURequest? = nil
    ) async throws -> (offset: Int, crc: UInt32) {
        var unanswered = unanswered
        // a receipt that came for fewer bytes than were sent: the offset it gave
        var earlyReceipt: Int?
        func takeAnswer() async throws {
            guard let request = unanswered else { return }
            unanswered = nil
            try await controlPoint.requireAnswer(to: request, timeout: options.responseTimeout)
        }
        let end = try await streamer.stream(
            bytes, through: controlPoint.channel, meter: meter, receiptOnLastPacket: true,
            beforeReceipt: takeAnswer
        ) { receipt, sentUpTo in
            switch receipt.outcome {
            case .checksum(let offset, _) where receipt.hasReceiptForm:
                if offset == sentUpTo { return true }
                earlyReceipt = Int(offset)
                return false
            case .failure(let result, let extended) where receipt.hasReceiptForm:
                throw session.failure(
                    DFUError(secureResult: result, extended: extended),
                    "the bootloader refused a firmware packet with \(result)")
            default:
                throw session.failure(.unsupportedResponse, "expected a packet receipt, got \(receipt)")
            }
        }
        if case .finished(let receipt?) = end, case .checksum(let offset, let crc) = receipt.outcome {
            runState.pacing.receiptsMissedInARow = 0
            return (Int(offset), crc)
        }
        try await takeAnswer()
        let held = try await controlPoint.checksum()
        if case .interrupted(let sentUpTo) = end {
            try await receiptNotWhereDue(early: earlyReceipt, sentUpTo: sentUpTo, held: held.offset)
        }
        return held
    }

    /// The receipt for the packets up to `sentUpTo` did not come (`early` nil) or came for fewer
    /// bytes, and the device holds `held`. Fewer bytes held: packets were lost, which explains
    /// it. All of them held: the device's receipts cannot be counted on (it sends none, or counts
    /// in another way); twice in a row, and the engine turns them off for the rest of the update
    /// (`SecurePacing.givesUpDefaultReceipts`).
    private func receiptNotWhereDue(early: Int?, sentUpTo: Int, held: Int) async throws {
        guard held >= sentUpTo else {
            if let early { session.log(.debug, "receipt for \(early) bytes, \(sentUpTo) sent") }
            return
        }
        runState.pacing.receiptsMissedInARow += 1
        if let early {
            session.log(.info, "a receipt came for \(early) of \(sentUpTo) bytes, all of which arrived")
        }
        guard runState.pacing.givesUpDefaultReceipts(chosen: options.nordic.packetReceiptNotifications),
            controlPoint.channel.ledger.interval > 0
        else { return }
        session.log(
            .info,
            "the device's packet receipts did not come where due twice in a row; "
                + "asking for each object's checksum instead")
        try await controlPoint.require(.setPacketReceiptNotification(0), timeout: options.notificationTimeout)
    }

    /// An object that arrived incomplete right after Create: the flash was still busy
    /// (an erase, the settings write) and the bootloader dropped packets (`LearnedFlashWait`).
    private func learnSlowerFlash(_ loss: DataObjectRecovery.FlashLoss, firstObjectOfPart: Bool) {
        runState.pacing.flashWait.learnLoss(
            waited: loss.waited, blocked: loss.blocked, roundTrip: loss.roundTrip,
            firstObjectOfPart: firstObjectOfPart)
        session.log(
            .info,
            "the device could not take packets for \(loss.blocked.secondsForPeople); waiting "
                + "\(runState.pacing.flashWait.afterCreate.secondsForPeople) "
                + "after the next Create")
    }
}
