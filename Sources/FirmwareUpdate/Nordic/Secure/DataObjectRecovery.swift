/// What to do after each try at one Secure data object, decided from what the device then holds
/// (protocol doc §2.7): a pure value, so that every branch is tested without a device, driving
/// the short I/O loop of `SecureFirmwareTransfer.sendObject` as `PacketReceiptLedger` drives the
/// receipts.
///
/// A device that holds fewer bytes than were sent lost packets (a full flash queue drops them
/// silently): with a matching CRC the missing tail is resent after the time the device could not
/// take packets; with another CRC later packets took the place of lost ones, and only a new
/// object mends that (one of `lostBytesRecoveries`). All bytes held with a wrong CRC is
/// corruption: the object is created again, at most `checksumAttempts` times in all.
struct DataObjectRecovery {
    /// The object's image offsets.
    let range: Range<Int>
    /// Where the next try streams from.
    private(set) var from: Int
    /// Whether the next try starts with Create.
    private(set) var needsCreate: Bool
    /// The wait before the next try streams, when it does not create (after Create, the flash
    /// wait applies).
    private(set) var waitBeforeStream: Duration = .zero
    private var corruptAttempts = 0
    private var recoveries = 0
    /// No try of this object has lost a packet yet.
    private var lossFree = true

    /// How many times an object is sent before a checksum mismatch is final.
    static let checksumAttempts = 3
    /// How many times the engine continues after the device reported fewer bytes than were
    /// sent, before it gives up with `bytesLost`.
    static let lostBytesRecoveries = 8

    /// A new object over `range`, or the rest of one the device holds up to `continuingFrom`.
    init(range: Range<Int>, continuingFrom: Int?) {
        self.range = range
        from = continuingFrom ?? range.lowerBound
        needsCreate = continuingFrom == nil
    }

    /// One try: what was streamed, how long it took and what the device then held.
    struct Try {
        /// The device's offset and whether its CRC is the image's up to that offset.
        var heldOffset: Int
        var crcMatches: Bool
        /// The try's wait before streaming, and the round trip of its Create (zero without one).
        var waited: Duration
        var createRoundTrip: Duration
        /// From the first packet to the device's answer.
        var streamDuration: Duration
    }

    enum Decision: Equatable {
        /// The device holds the object. `wasClean`: no try lost a packet.
        case complete(wasClean: Bool)
        /// `lost` bytes were lost; the device holds a clean prefix: send the rest from `from`
        /// after `waitBeforeStream`.
        case resendTail(lost: Int)
        /// Packets were lost and replaced by later ones: create the object again.
        case createAgainAfterLoss
        /// Every byte arrived, corrupted: create the object again (`attempt` of `checksumAttempts`).
        case createAgainAfterMismatch(attempt: Int)
        /// Give up: `bytesLost` or `crcError`.
        case fail(DFUError, String)

        /// Whether only the object's lost tail is sent again (the device holds a clean prefix).
        var resendsTail: Bool {
            if case .resendTail = self { true } else { false }
        }
    }

    /// A loss right after Create that the flash wait should learn from.
    struct FlashLoss: Equatable {
        var waited: Duration
        var blocked: Duration
        var roundTrip: Duration
    }

    /// Judges `attempt`; the second value is the loss the flash wait learns from, when the try
    /// created the object and lost packets.
    mutating func judge(_ attempt: Try) -> (Decision, FlashLoss?) {
        if attempt.heldOffset == range.upperBound, attempt.crcMatches {
            return (.complete(wasClean: lossFree), nil)
        }
        let measured = LearnedFlashWait.blockedTime(
            lostBytes: range.upperBound - attempt.heldOffset, sentBytes: range.upperBound - from,
            over: attempt.streamDuration)
        // lost again after a wait: the device was busy at least that long again
        let blocked = lossFree ? measured : min(max(measured, attempt.waited), LearnedFlashWait.cap)
        lossFree = false
        let lostPackets = attempt.heldOffset >= range.lowerBound && attempt.heldOffset < range.upperBound
        guard lostPackets else {
            corruptAttempts += 1
            guard corruptAttempts < Self.checksumAttempts else {
                return (
                    .fail(
                        .crcError,
                        "the object at offset \(range.lowerBound) arrived corrupted \(Self.checksumAttempts) times"
                    ),
                    nil
                )
            }
            needsCreate = true
            from = range.lowerBound
            return (.createAgainAfterMismatch(attempt: corruptAttempts), nil)
        }
        let loss =
            needsCreate
            ? FlashLoss(waited: attempt.waited, blocked: blocked, roundTrip: attempt.createRoundTrip) : nil
        recoveries += 1
        guard recoveries <= Self.lostBytesRecoveries else {
            return (
                .fail(
                    .bytesLost, "the device kept losing packets of the object at offset \(range.lowerBound)"),
                loss
            )
        }
        guard attempt.crcMatches else {
            needsCreate = true
            from = range.lowerBound
            return (.createAgainAfterLoss, loss)
        }
        // the rest, once the device has had the time it could not take packets (doubled while
        // resends make no progress)
        waitBeforeStream =
            attempt.heldOffset == from
            ? min(max(blocked, attempt.waited * 2), LearnedFlashWait.cap) : blocked
        from = attempt.heldOffset
        needsCreate = false
        return (.resendTail(lost: range.upperBound - attempt.heldOffset), loss)
    }
}
