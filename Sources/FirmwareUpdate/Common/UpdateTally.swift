import DFUSupport
import NordicDFU

/// What one update counts for its result: firmware bytes written (and written again),
/// reconnections, the parts' transfer times and the parts the device took.
struct UpdateTally {
    /// Firmware bytes written to packet characteristics.
    let firmwareWrites = Locked(FirmwareWrites())
    /// Reconnections and part restarts.
    var retries = 0
    /// See `DFUResult.transferDurations`.
    var transferDurations: [Duration] = []
    /// See `DFUResult.partsActivated`.
    var partsActivated = 0

    /// The result of an update that ended with `outcome` after `duration`.
    func result(_ outcome: DFUResult.Outcome, duration: Duration) -> DFUResult {
        let writes = firmwareWrites.withLock { $0 }
        return DFUResult(
            outcome: outcome, bytesSent: writes.total, duration: duration, retries: retries,
            transferDurations: transferDurations, partsActivated: partsActivated, bytesResent: writes.resent,
            bytesResentForPace: writes.resentForPace)
    }
}

/// The firmware bytes one update wrote: all of them, and those of the current part written a
/// second time (an object sent again, lost packets, a Legacy part restarted).
struct FirmwareWrites {
    var total = 0
    var resent = 0
    /// Of `resent`, those written again while `pacing`.
    var resentForPace = 0
    /// Whether what is written again now makes up for packets the device dropped while its flash
    /// was busy (until the object is complete).
    var pacing = false
    /// The end of the highest range of the current part written so far.
    private var partEnd = 0

    /// `range` (offsets in the part's image) was written.
    mutating func record(_ range: Range<Int>) {
        total += range.count
        let again = max(0, min(range.upperBound, partEnd) - range.lowerBound)
        resent += again
        if pacing { resentForPace += again }
        partEnd = max(partEnd, range.upperBound)
    }

    mutating func startPart() {
        partEnd = 0
        pacing = false
    }
}
