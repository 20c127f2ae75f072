/// CRC-16/CCITT-FALSE, the checksum of the Legacy DFU init packet and of nrfutil's `calc_crc16`:
/// polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR.
/// Check value: "123456789" → 0x29B1.
///
/// Incremental like ``CRC32``: `update` any number of times, read `value`.
public struct CRC16: Sendable, Hashable {
    /// The checksum of every byte fed so far (0xFFFF before any).
    public private(set) var value: UInt16

    /// A checksum of no bytes.
    public init() { value = 0xFFFF }

    /// Continues from a checksum already computed over earlier bytes.
    public init(resumingFrom value: UInt16) { self.value = value }

    /// Feeds `bytes`.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if done == nil {
            let table = CRC16Table.shared
            for byte in bytes {
                value = table[Int(UInt8(truncatingIfNeeded: value &>> 8) ^ byte)] ^ (value &<< 8)
            }
        }
    }

    /// Feeds the bytes of `buffer`.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        let table = CRC16Table.shared
        var crc = value
        for byte in buffer {
            crc = table[Int(UInt8(truncatingIfNeeded: crc &>> 8) ^ byte)] ^ (crc &<< 8)
        }
        value = crc
    }

    /// The CRC-16/CCITT-FALSE of `bytes`.
    public static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt16 where Bytes.Element == UInt8 {
        var crc = CRC16()
        crc.update(bytes)
        return crc.value
    }

    /// The CRC-16/CCITT-FALSE of the bytes of `buffer`.
    public static func checksum(_ buffer: UnsafeRawBufferPointer) -> UInt16 {
        var crc = CRC16()
        crc.update(buffer)
        return crc.value
    }
}

/// The byte-at-a-time table: entry b is the CRC register after shifting b through it from zero.
private enum CRC16Table {
    /// Allocated once and never freed nor written after: safe to share between threads.
    nonisolated(unsafe) static let shared: UnsafePointer<UInt16> = {
        let table = UnsafeMutablePointer<UInt16>.allocate(capacity: 256)
        for byte in 0..<256 {
            var crc = UInt16(byte) &<< 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc &<< 1) ^ 0x1021 : crc &<< 1 }
            table[byte] = crc
        }
        return UnsafePointer(table)
    }()
}
