extension ArraySlice<UInt8> {
    /// The index ranges of consecutive packets of `size` bytes (the last may be shorter); empty
    /// bytes are one empty packet. How every transport cuts `writeWithoutResponse(_:inPacketsOf:written:)`.
    package func packetRanges(ofSize size: Int) -> [Range<Int>] {
        precondition(size > 0, "a packet holds at least one byte")
        guard !isEmpty else { return [startIndex..<startIndex] }
        return stride(from: startIndex, to: endIndex, by: size).map { $0..<Swift.min($0 + size, endIndex) }
    }
}
