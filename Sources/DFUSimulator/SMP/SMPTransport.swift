import MCUmgr

/// The SMP server's Bluetooth transport (Zephyr `smp_bt.c`, `smp_reassembly.c`, `smp.c`): turns
/// writes to the SMP characteristic into request packets, within its buffer pool.
///
/// The pool holds `bufferCount` buffers of `bufferSize` bytes, taken without waiting: a request
/// holds one from its first byte until its answer is out, and the request being handled holds a
/// second for its answer. (A frame being reassembled also holds one, but no other frame can
/// start meanwhile, so only its first fragment is checked.) A write that finds no free buffer, or does not fit one, is refused with
/// an ATT error, which a write without response never reports: the request is lost unseen.
struct SMPTransport: Sendable {
    let configuration: SMPDeviceConfiguration
    /// When the buffers of requests already received are released, in no order.
    private var releases: [Nanoseconds] = []
    /// With reassembly: the frame being collected, and how many bytes it still needs.
    private var partial: [UInt8]?
    private var missing = 0

    init(configuration: SMPDeviceConfiguration) { self.configuration = configuration }

    /// Takes one write at `time`; the packet to handle when it completes one, nil when the
    /// bytes were lost or a frame is still incomplete. `answering`: whether the server is still
    /// handling an earlier request then (holding a buffer for its answer).
    mutating func receive(_ bytes: [UInt8], at time: Nanoseconds, answering: Bool) -> [UInt8]? {
        releases.removeAll { $0 <= time }
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
    /// is out).
    mutating func hold(until release: Nanoseconds) { releases.append(release) }

    /// The link dropped: a frame being collected is dropped with it (its CCCD is cleared).
    mutating func linkDropped() { partial = nil }

    private func hasFreeBuffer(answering: Bool) -> Bool {
        releases.count + (answering ? 1 : 0) < configuration.bufferCount
    }
}
