/// Little-endian integers, as the wire formats and images of both families write them.
package struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    package private(set) var offset: Int

    package init(_ bytes: some Collection<UInt8>) {
        self.bytes = ArraySlice(bytes)
        self.offset = self.bytes.startIndex
    }

    package var remaining: Int { bytes.endIndex - offset }

    package mutating func readUInt8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func readUInt16() -> UInt16? { readInteger(UInt16.self) }
    package mutating func readUInt32() -> UInt32? { readInteger(UInt32.self) }

    package mutating func readBytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    private mutating func readInteger<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { return nil }
        defer { offset += size }
        return Array(bytes[offset..<offset + size]).littleEndian(at: 0)
    }
}

extension Array where Element == UInt8 {
    /// The little-endian integer at `offset`; the caller has checked that its bytes are there.
    package func littleEndian<Integer: FixedWidthInteger>(
        at offset: Int, as type: Integer.Type = Integer.self
    )
        -> Integer
    {
        var value: Integer = 0
        for index in (0..<Integer.bitWidth / 8).reversed() {
            value = value << 8 | Integer(self[offset + index])
        }
        return value
    }

    /// Appends `value` in little-endian byte order.
    package mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        for index in 0..<MemoryLayout<T>.size { append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}
