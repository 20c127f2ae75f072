/// What an update reports while it runs, in order; the last event is always `.result`.
import NordicDFU

public enum DFUEvent: Sendable {
    case state(DFUState)
    /// The installed and packaged versions were compared (once, before anything is sent).
    case version(DFUVersionCheck)
    case progress(DFUProgress)
    case log(DFULogLevel, String)
    case result(DFUResult)
}

/// How much a log line matters.
public enum DFULogLevel: Int, Sendable, Comparable {
    case debug = 0
    case verbose = 1
    case info = 5
    case application = 10
    case warning = 15
    case error = 20

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How an update ended.
public struct DFUResult: Sendable {
    public enum Outcome: Sendable, Equatable {
        case completed
        /// The device already runs the packaged version (or a newer one).
        case skipped
        case failed(DFUFailure)
        /// The user aborted; the device was told to reset and can take the update again.
        case aborted
    }

    public var outcome: Outcome
    /// Firmware bytes written to the device in total (resent bytes included).
    public var bytesSent: Int
    /// Of `bytesSent`, those written a second time: an object sent again after a checksum
    /// mismatch, packets the device lost, a Legacy part restarted. The engine recovers from
    /// these by itself; a large share says the link or the device struggles.
    public var bytesResent: Int
    /// Of `bytesResent`, those the device dropped while its flash was busy (Secure DFU), sent
    /// again while the engine learnt the device's pace: expected on a healthy link, not a fault.
    public var bytesResentForPace: Int
    /// From the start to the end of the update, on the link's time.
    public var duration: Duration
    /// Reconnections after a lost link or restarts of a part.
    public var retries: Int
    /// For each part sent, the link time from its first control point request to the device's
    /// last answer (the final Execute or Validate), in the connection that completed it.
    public var transferDurations: [Duration]
    /// How many of the package's parts, from the first, the device took the activating request
    /// of (Secure DFU's last Execute, Legacy DFU's Activate and Reset) in this update, answered
    /// or not. A retry of the whole update sends only the parts after them.
    public var partsActivated: Int

    public init(
        outcome: Outcome, bytesSent: Int, duration: Duration, retries: Int,
        transferDurations: [Duration] = [],
        partsActivated: Int = 0, bytesResent: Int = 0, bytesResentForPace: Int = 0
    ) {
        self.bytesResent = bytesResent
        self.bytesResentForPace = bytesResentForPace
        self.outcome = outcome
        self.bytesSent = bytesSent
        self.duration = duration
        self.retries = retries
        self.transferDurations = transferDurations
        self.partsActivated = partsActivated
    }

    /// `completed`, `skipped`, `failed` or `aborted`, as machine output prints it.
    public var identifier: String {
        switch outcome {
        case .completed: "completed"
        case .skipped: "skipped"
        case .failed: "failed"
        case .aborted: "aborted"
        }
    }

    /// The failure, when the update failed.
    public var failure: DFUFailure? {
        if case .failed(let failure) = outcome { failure } else { nil }
    }
}
