/// Joins the notifications of the SMP characteristic into whole frames.
///
/// Zephyr's Bluetooth transport sends a response longer than ATT_MTU − 3 as several notifications
/// with no framing of their own: the 8-byte header's length says when the frame is complete.
/// Several frames in a row are split apart. A header that cannot be valid (reserved bits or
/// version) means the stream is out of step: the buffered bytes are dropped and the error thrown,
/// so that the next notification starts a new frame.
public struct SMPReassembler: Sendable {
    private var buffer: [UInt8] = []

    public init() {}

    /// Bytes held for a frame not complete yet.
    public var bufferedCount: Int { buffer.count }

    /// Adds one notification; returns the frames it completes, in order (often none or one).
    public mutating func append(_ fragment: [UInt8]) throws(SMPFrameError) -> [SMPFrame] {
        buffer += fragment
        var frames: [SMPFrame] = []
        var start = 0
        while buffer.count - start >= SMPHeader.size {
            let header: SMPHeader
            do throws(SMPFrameError) {
                header = try SMPHeader(decoding: buffer[start...])
            } catch {
                buffer.removeAll()
                throw error
            }
            let end = start + SMPHeader.size + Int(header.length)
            guard end <= buffer.count else { break }
            // The header decoded above, and the slice is exactly as long as it announces.
            frames.append(try! SMPFrame(decoding: Array(buffer[start..<end])))
            start = end
        }
        buffer.removeFirst(start)
        return frames
    }

    /// Drops a partial frame, e.g. after a disconnection or a timeout.
    public mutating func reset() {
        buffer.removeAll()
    }
}
