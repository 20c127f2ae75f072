import MCUmgr

/// The SMP server's Bluetooth transport (Zephyr `smp_bt.c`, `smp_reassembly.c`, `smp.c`): turns
/// writes to the SMP characteristic into request packets, within its buffer pool.
///
/// The pool holds `bufferCount` buffers of `bufferSize` bytes, taken without waiting: a request
/// holds one from its first byte until its answer is reported sent, and the request being handled
/// holds a second for its answer. `smp_bt_tx_pkt` waits (`smp_notify_sem`) until the link layer
/// reports the notification sent, which it learns from the central's next packet, in the
/// connection event after the answer's: only then are both buffers freed and the next request
/// handled. A write in that event still finds them taken. (A frame being reassembled also holds
/// one, but no other frame can start meanwhile, so only its first fragment is checked.) A write
/// that finds no free buffer, or does not fit one, is refused with an ATT error, which a write
/// without response never reports: the request is lost unseen.
struct SMPTransport: Sendable {
    let configuration: SMPDeviceConfiguration
    /// When the buffers of requests already received are released, in no order.
    private var releases: [Nanoseconds] = []
    /// When the last answer is reported sent: the work queue handles no request before, and
    /// until then a buffer is held for the answer being built or sent.
    private(set) var workFreeAt: Nanoseconds = -1
    /// With reassembly: the frame being collected, and how many bytes it still needs.
    private var partial: [UInt8]?
    private var missing = 0

    init(configuration: SMPDeviceConfiguration) { self.configuration = configuration }

    /// Takes one write at `time`; the packet to handle when it completes one, nil when the
    /// bytes were lost or a frame is still incomplete.
    mutating func receive(_ bytes: [UInt8], at time: Nanoseconds) -> [UInt8]? {
        releases.removeAll { $0 < time }
        let answering = workFreeAt >= time
        guard configuration.reassembly else {
            guard bytes.count <= configuration.bufferSize, hasFreeBuffer(answering: answering) else {
                return nil
            }
            return bytes
        }
        guard var frame = partial else { return startFrame(bytes, answering: answering) }
        guard bytes.count <= missing else {
            // More than the header announced: the frame is dropped.
            partial = nil
            return nil
        }
        frame += bytes
        missing -= bytes.count
        partial = missing == 0 ? nil : frame
        return missing == 0 ? frame : nil
    }

    /// The first fragment of a frame: it must hold the header, and the frame must fit a buffer.
    private mutating func startFrame(_ bytes: [UInt8], answering: Bool) -> [UInt8]? {
        guard bytes.count >= SMPHeader.size else { return nil }
        let expected = SMPHeader.size + (Int(bytes[2]) << 8 | Int(bytes[3]))
        guard expected <= configuration.bufferSize, bytes.count <= expected,
            hasFreeBuffer(answering: answering)
        else { return nil }
        guard bytes.count < expected else { return bytes }
        partial = bytes
        missing = expected - bytes.count
        return nil
    }

    /// Records that the packet just received holds its buffer until `release` (its last answer
    /// is reported sent), and the work queue with it.
    mutating func hold(until release: Nanoseconds) {
        releases.append(release)
        workFreeAt = max(workFreeAt, release)
    }

    /// When an answer ready at `readyAt`, to a request received at `time`, is reported sent:
    /// the connection event after the one it goes out in (no earlier than the event after the
    /// request's), every `interval`.
    static func reportedSent(readyAt: Nanoseconds, receivedAt time: Nanoseconds, interval: Nanoseconds)
        -> Nanoseconds
    {
        let sentIn = max(time / interval + 1, (readyAt + interval - 1) / interval)
        return (sentIn + 1) * interval
    }

    /// The link dropped: a frame being collected is dropped with it (its CCCD is cleared).
    mutating func linkDropped() { partial = nil }

    private func hasFreeBuffer(answering: Bool) -> Bool {
        releases.count + (answering ? 1 : 0) < configuration.bufferCount
    }
}
