/// Little-endian integers appended to bytes, as the wire formats and zips under test store them.
extension [UInt8] {
    public mutating func le16(_ value: UInt16) { append(contentsOf: value.littleEndianBytes) }
    public mutating func le32(_ value: UInt32) { append(contentsOf: value.littleEndianBytes) }
}

extension FixedWidthInteger {
    /// This integer's bytes, least significant first.
    public var littleEndianBytes: [UInt8] {
        (0..<(Self.bitWidth / 8)).map { UInt8(truncatingIfNeeded: self >> (8 * $0)) }
    }
}
