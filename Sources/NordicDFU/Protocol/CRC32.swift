/// CRC-32 as zlib, Ethernet and the Secure DFU bootloader compute it: reflected polynomial
/// 0xEDB88320, initial value and final XOR 0xFFFFFFFF. Check value: "123456789" → 0xCBF43926.
///
/// Incremental: feed the bytes in any number of pieces, the checksum is that of their concatenation.
///
/// ```swift
/// var crc = CRC32()
/// crc.update(header)
/// crc.update(payload)
/// let value = crc.value  // == CRC32.checksum(header + payload)
/// ```
///
/// Runs slicing-by-16 over 16 KiB of tables and allocates nothing, so it can be called on every
/// packet of a transfer.
public struct CRC32: Sendable, Hashable {
    /// The register, kept inverted between updates.
    private var state: UInt32

    /// A checksum of no bytes (value 0).
    public init() { state = 0xFFFF_FFFF }

    /// Continues from a checksum already computed over earlier bytes, as zlib's `crc32(crc, …)`
    /// does; e.g. the CRC a DFU target reported for the bytes it holds.
    public init(resumingFrom value: UInt32) { state = ~value }

    /// The checksum of every byte fed so far.
    public var value: UInt32 { ~state }

    /// Feeds `bytes`.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if done == nil {
            for byte in bytes { updateByte(byte) }
        }
    }

    /// Feeds the bytes of `buffer`.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard var pointer = buffer.baseAddress else { return }
        var count = buffer.count
        var crc = state
        CRC32Tables.shared.withUnsafeBufferPointer { tables in
            let table = tables.baseAddress!
            while count >= 16 {
                let low = UInt32(littleEndian: pointer.loadUnaligned(as: UInt32.self)) ^ crc
                let word1 = UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
                let word2 = UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
                let word3 = UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
                crc =
                    Self.lookup(table, 15, low) ^ Self.lookup(table, 14, low &>> 8)
                    ^ Self.lookup(table, 13, low &>> 16) ^ Self.lookup(table, 12, low &>> 24)
                    ^ Self.lookup(table, 11, word1) ^ Self.lookup(table, 10, word1 &>> 8)
                    ^ Self.lookup(table, 9, word1 &>> 16) ^ Self.lookup(table, 8, word1 &>> 24)
                    ^ Self.lookup(table, 7, word2) ^ Self.lookup(table, 6, word2 &>> 8)
                    ^ Self.lookup(table, 5, word2 &>> 16) ^ Self.lookup(table, 4, word2 &>> 24)
                    ^ Self.lookup(table, 3, word3) ^ Self.lookup(table, 2, word3 &>> 8)
                    ^ Self.lookup(table, 1, word3 &>> 16) ^ Self.lookup(table, 0, word3 &>> 24)
                pointer += 16
                count -= 16
            }
            while count > 0 {
                let index = Int((crc ^ UInt32(pointer.load(as: UInt8.self))) & 0xFF)
                crc = table[index] ^ (crc &>> 8)
                pointer += 1
                count -= 1
            }
        }
        state = crc
    }

    /// The CRC-32 of `bytes`.
    public static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// The CRC-32 of the bytes of `buffer`.
    public static func checksum(_ buffer: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(buffer)
        return crc.value
    }

    private mutating func updateByte(_ byte: UInt8) {
        state = CRC32Tables.shared[Int((state ^ UInt32(byte)) & 0xFF)] ^ (state &>> 8)
    }

    /// Entry `index & 0xFF` of table `slice`: the CRC of that byte followed by `slice` zero bytes.
    @inline(__always)
    private static func lookup(_ table: UnsafePointer<UInt32>, _ slice: Int, _ index: UInt32) -> UInt32 {
        table[slice &* 256 &+ Int(index & 0xFF)]
    }
}

/// The 16 tables of slicing-by-16, one after another: table 0 is the classic byte-at-a-time table,
/// table k maps a byte to its CRC contribution when k zero bytes follow it.
private enum CRC32Tables {
    static let shared: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 16 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc &>> 1) ^ 0xEDB8_8320 : crc &>> 1 }
            tables[byte] = crc
        }
        for slice in 1..<16 {
            for byte in 0..<256 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = tables[Int(previous & 0xFF)] ^ (previous &>> 8)
            }
        }
        return tables
    }()
}
