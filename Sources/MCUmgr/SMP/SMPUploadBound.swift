/// The shortest SMP image upload a client could make on a measured link (docs/benchmarks.md,
/// "SMP through bluetoothd"; `dfu-bench smp` sets clients against it): the file's request frames,
/// each as large as the frame limit allows (headers and CBOR included), sent at the link's raw
/// rate; the first chunk alone, answered after the device's erase; then the others with at most
/// `window` chunks in flight, so that each window costs at least the round trip of its first
/// frame (the chunk `window` later goes only once it was answered). Nothing else: no flash
/// writes, no other request.
public struct SMPUploadBound: Sendable {
    /// Each request frame's bytes, in the order sent: the first chunk's, then the others'.
    public var frameBytes: [Int]
    /// Chunks in flight at most (`buf_count − 2`, at least 1, as the engine sends them).
    public var window: Int
    /// One write without response and the notification that answers it.
    public var roundTrip: Duration
    /// The bytes that round trip carries: the part of a frame it covers.
    public var roundTripBytes: Int
    /// Write-without-response bytes per second that reach the device.
    public var bytesPerSecond: Double
    /// What the device erases before it answers the first chunk.
    public var erase: Duration

    public init(
        frameBytes: [Int], window: Int, roundTrip: Duration, roundTripBytes: Int, bytesPerSecond: Double,
        erase: Duration
    ) {
        self.frameBytes = frameBytes
        self.window = max(1, window)
        self.roundTrip = roundTrip
        self.roundTripBytes = roundTripBytes
        self.bytesPerSecond = bytesPerSecond
        self.erase = erase
    }

    /// The frames of a file of `length` bytes cut as an SMP client cuts it: the first chunk with
    /// `start`, every chunk as much data as a `frameLimit`-byte frame holds.
    public static func frames(length: Int, frameLimit: Int, start: ImageUploadChunk.Start) -> [Int] {
        var frames: [Int] = []
        var offset = 0
        while offset < length {
            let first = offset == 0 ? start : nil
            let room = ImageUploadChunk.maximumDataCount(
                frameLimit: frameLimit, offset: UInt32(offset), start: first)
            guard room > 0 else { return frames }
            let data = [UInt8](repeating: 0, count: min(room, length - offset))
            var chunk = ImageUploadChunk(offset: UInt32(offset), data: data)
            chunk.start = first
            frames.append(SMPHeader.size + chunk.body.encoded.count)
            offset += data.count
        }
        return frames
    }

    /// The first chunk (its round trip and the erase), then per window of later chunks the longer
    /// of sending them and their first frame's round trip.
    public var duration: Duration {
        guard let first = frameBytes.first else { return .zero }
        var seconds = roundTrip(of: first) + erase / .seconds(1)
        var index = 1
        while index < frameBytes.count {
            let windowBytes = frameBytes[index..<min(index + window, frameBytes.count)].reduce(0, +)
            seconds += max(sending(windowBytes), roundTrip(of: frameBytes[index]))
            index += window
        }
        return .seconds(seconds)
    }

    /// Seconds from a frame's first byte to its answer at the earliest: the measured round trip
    /// plus the frame's bytes beyond the ones it carried, at the raw rate.
    private func roundTrip(of frame: Int) -> Double {
        roundTrip / .seconds(1) + sending(frame - roundTripBytes)
    }

    private func sending(_ bytes: Int) -> Double { Double(max(0, bytes)) / bytesPerSecond }
}
