import DFUSupport
import GATT

/// How far the upload of one part has come (protocol doc §6.3).
public struct DFUProgress: Sendable, Equatable {
    /// 1-based index of the part being sent.
    public var part: Int
    public var totalParts: Int
    /// 0–100: `bytesSent · 100 / partBytes`, rounded down.
    public var percent: Int
    /// Bytes of this part the device holds, including those it kept from an earlier connection.
    public var bytesSent: Int
    public var partBytes: Int
    /// Bytes per second since the previous progress report, on the link's time.
    public var currentSpeedBytesPerSecond: Double
    /// Bytes per second since the first packet of this connection, on the link's time; bytes the
    /// device already held when the transfer resumed are not counted.
    public var averageSpeedBytesPerSecond: Double

    public init(
        part: Int, totalParts: Int, percent: Int, bytesSent: Int, partBytes: Int,
        currentSpeedBytesPerSecond: Double, averageSpeedBytesPerSecond: Double
    ) {
        self.part = part
        self.totalParts = totalParts
        self.percent = percent
        self.bytesSent = bytesSent
        self.partBytes = partBytes
        self.currentSpeedBytesPerSecond = currentSpeedBytesPerSecond
        self.averageSpeedBytesPerSecond = averageSpeedBytesPerSecond
    }
}

/// Turns byte counts into progress reports: one at 0, then one each time the integer percent
/// grows, always ending at 100.
final class ProgressMeter {
    let part: Int
    let totalParts: Int
    let partBytes: Int
    private let linkTime: any LinkTime
    private var sessionStart: Duration?
    private var sessionStartBytes = 0
    private var lastReportTime: Duration = .zero
    private var lastReportBytes = 0
    private var lastPercent = -1
    private var currentSpeed = 0.0

    init(part: Int, totalParts: Int, partBytes: Int, linkTime: any LinkTime) {
        self.part = part
        self.totalParts = totalParts
        self.partBytes = partBytes
        self.linkTime = linkTime
    }

    /// Starts a session (a connection's transfer) at `bytesOnDevice`; returns the 0 % (or resumed)
    /// report when it is due.
    func start(at bytesOnDevice: Int) -> DFUProgress? {
        let now = linkTime.now()
        sessionStart = now
        sessionStartBytes = bytesOnDevice
        lastReportTime = now
        lastReportBytes = bytesOnDevice
        currentSpeed = 0
        return report(bytesOnDevice, force: lastPercent < 0)
    }

    /// The report for `bytesOnDevice`, when the percent has grown.
    func update(_ bytesOnDevice: Int) -> DFUProgress? { report(bytesOnDevice, force: false) }

    private func report(_ bytes: Int, force: Bool) -> DFUProgress? {
        let percent = partBytes == 0 ? 100 : min(100, bytes * 100 / partBytes)
        guard force || percent > lastPercent else { return nil }
        let now = linkTime.now()
        // Bytes queued in the same instant as the previous report keep the previous speed.
        if now > lastReportTime {
            currentSpeed = Self.rate(bytes - lastReportBytes, over: now - lastReportTime)
            lastReportTime = now
            lastReportBytes = bytes
        }
        let current = currentSpeed
        let average = Self.rate(bytes - sessionStartBytes, over: now - (sessionStart ?? now))
        lastPercent = max(lastPercent, percent)
        return DFUProgress(
            part: part, totalParts: totalParts, percent: percent, bytesSent: bytes, partBytes: partBytes,
            currentSpeedBytesPerSecond: current, averageSpeedBytesPerSecond: average)
    }

    private static func rate(_ bytes: Int, over duration: Duration) -> Double {
        let seconds = duration.seconds
        return seconds > 0 ? Double(max(0, bytes)) / seconds : 0
    }
}
