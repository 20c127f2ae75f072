extension [UInt8] {
    /// The little-endian integer at `offset`; the caller has checked that its bytes are there.
    func littleEndian<Integer: FixedWidthInteger & UnsignedInteger>(
        at offset: Int, as type: Integer.Type = Integer.self
    ) -> Integer {
        var value: Integer = 0
        for index in (0..<Integer.bitWidth / 8).reversed() {
            value = value << 8 | Integer(self[offset + index])
        }
        return value
    }
}
