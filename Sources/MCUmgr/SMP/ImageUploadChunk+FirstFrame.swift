extension ImageUploadChunk {
    /// The smallest SMP frame that carries the first chunk of an image file of `length` bytes
    /// (MCUboot's image `image`) with its whole header, without the file's SHA-256: a device
    /// that joins no frames split over writes needs writes at least this long.
    public static func smallestFirstFrame(image: UInt32, length: Int) -> Int {
        let needed = min(length, MCUbootHeader.size)
        let start = Start(image: image, length: UInt32(clamping: length), sha256: nil)
        var frame = SMPHeader.size
        while maximumDataCount(frameLimit: frame, offset: 0, start: start) < needed { frame += 1 }
        return frame
    }
}
