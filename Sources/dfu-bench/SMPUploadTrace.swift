import MCUmgr

/// An image upload as `dfu-sim --trace` saw it (its `write` events): what `dfu-bench smp` measures
/// every client by, ours and smpmgr alike, from the same clock.
struct SMPUploadTrace {
    /// From the arrival of the upload's first write to the moment its last answer was due.
    var span: Duration
    /// Upload frames the device took.
    var frames: Int
    /// The longest write of the upload (what the client took one write to be on this link).
    var longestWrite: Int

    /// The largest run of upload frames in `events` (a run ends at any other request, e.g. the
    /// image state that follows an upload): the image the bench measures, not the warm-up's
    /// smaller one. Frames are told from their headers; with reassembly a frame's later writes
    /// are counted by its header's length, so image bytes are never read as a header.
    init?(events: [[String: Any]]) {
        var runs: [SMPUploadTrace] = []
        var current: (start: Double, end: Double, frames: Int, longest: Int)?
        var frameBytesMissing = 0
        for write in events where write["event"] as? String == "write" {
            guard let at = write["at_ms"] as? Double, let length = write["length"] as? Int,
                let value = write["value"] as? String
            else { continue }
            let answeredAt = at + ((write["notifies_after_ms"] as? [Double])?.max() ?? 0)
            if frameBytesMissing <= 0 {
                let header = Self.bytes(hex: value)
                guard header.count >= SMPHeader.size else { continue }
                frameBytesMissing = SMPHeader.size + Int(header[2]) << 8 + Int(header[3])
                let isUpload = header[0] & 0x07 == 2 && header[4] == 0 && header[5] == 1 && header[7] == 1
                if isUpload, current == nil {
                    current = (at, at, 0, 0)
                } else if !isUpload, let run = current {
                    runs.append(SMPUploadTrace(run))
                    current = nil
                }
                current?.frames += 1
            }
            frameBytesMissing -= length
            if var run = current {
                run.end = max(run.end, answeredAt)
                run.longest = max(run.longest, length)
                current = run
            }
        }
        if let run = current { runs.append(SMPUploadTrace(run)) }
        guard let longest = runs.max(by: { $0.frames < $1.frames }) else { return nil }
        self = longest
    }

    private init(_ run: (start: Double, end: Double, frames: Int, longest: Int)) {
        span = .milliseconds(run.end - run.start)
        frames = run.frames
        longestWrite = run.longest
    }

    private static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), next > index {
            guard let byte = UInt8(hex[index..<next], radix: 16) else { break }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
