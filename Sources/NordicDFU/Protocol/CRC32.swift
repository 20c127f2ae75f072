import CCRC32Folding

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
/// Folds with carry-less multiplication where the CPU can (x86-64 PCLMULQDQ), else runs
/// slicing-by-16 (eight interleaved slicing-by-8 lanes on long buffers) over 16 KiB of tables;
/// it allocates nothing, so it can be called on every packet of a transfer.
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
        guard var base = buffer.baseAddress else { return }
        var count = buffer.count
        if count >= 64 && Self.canFold {
            let folded = count & ~15
            state = crc32_folding_update(state, base.assumingMemoryBound(to: UInt8.self), folded)
            base += folded
            count -= folded
        }
        updateWithTables(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Whether this CPU runs the carry-less multiplication path (x86-64 with PCLMULQDQ): about
    /// ten times the speed of the tables.
    private static let canFold = crc32_folding_available() != 0

    /// Feeds the bytes of `buffer` through the tables alone (the path of CPUs that cannot fold).
    mutating func updateWithTables(_ buffer: UnsafeRawBufferPointer) {
        guard var base = buffer.baseAddress else { return }
        var count = buffer.count
        let table = CRC32Tables.shared
        if count >= Self.laneThreshold {
            let laneLength = count / 8 & ~7
            state = Self.eightLanes(state, base, laneLength, table)
            base += 8 * laneLength
            count -= 8 * laneLength
        }
        state = Self.slicingBy16(state, base, count, table)
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

    /// The register after `count` bytes from `bytes`: 16 bytes per step, one table lookup per
    /// byte, then byte by byte. Everything stays in locals so that it lives in registers, and the
    /// XORs form a tree rather than one long dependency chain.
    private static func slicingBy16(
        _ register: UInt32, _ bytes: UnsafeRawPointer, _ count: Int, _ table: UnsafePointer<UInt32>
    ) -> UInt32 {
        var crc = register
        var pointer = bytes
        var remaining = count
        while remaining >= 16 {
            let low = step8(crc, pointer, table, slices: 8)
            let high = step8(0, pointer + 8, table, slices: 0)
            crc = low ^ high
            pointer += 16
            remaining &-= 16
        }
        while remaining > 0 {
            crc = table[Int((crc ^ UInt32(pointer.load(as: UInt8.self))) & 0xFF)] ^ (crc &>> 8)
            pointer += 1
            remaining &-= 1
        }
        return crc
    }

    /// Below this many bytes the single stream is faster than splitting and combining.
    private static let laneThreshold = 8 * 1024

    /// The register after eight lanes of `laneLength` bytes each (a multiple of 8), run side by
    /// side as eight independent slicing-by-8 streams so that the CPU overlaps their table lookups,
    /// then joined with ``CRC32Combination``.
    private static func eightLanes(
        _ register: UInt32, _ bytes: UnsafeRawPointer, _ laneLength: Int, _ table: UnsafePointer<UInt32>
    ) -> UInt32 {
        var crc0 = register
        var crc1: UInt32 = 0xFFFF_FFFF
        var crc2: UInt32 = 0xFFFF_FFFF
        var crc3: UInt32 = 0xFFFF_FFFF
        var crc4: UInt32 = 0xFFFF_FFFF
        var crc5: UInt32 = 0xFFFF_FFFF
        var crc6: UInt32 = 0xFFFF_FFFF
        var crc7: UInt32 = 0xFFFF_FFFF
        var offset = 0
        while offset < laneLength {
            crc0 = step8(crc0, bytes + offset, table, slices: 0)
            crc1 = step8(crc1, bytes + laneLength + offset, table, slices: 0)
            crc2 = step8(crc2, bytes + 2 * laneLength + offset, table, slices: 0)
            crc3 = step8(crc3, bytes + 3 * laneLength + offset, table, slices: 0)
            crc4 = step8(crc4, bytes + 4 * laneLength + offset, table, slices: 0)
            crc5 = step8(crc5, bytes + 5 * laneLength + offset, table, slices: 0)
            crc6 = step8(crc6, bytes + 6 * laneLength + offset, table, slices: 0)
            crc7 = step8(crc7, bytes + 7 * laneLength + offset, table, slices: 0)
            offset &+= 8
        }
        // Registers are inverted CRC values; combine works on values.
        let shift = CRC32Combination.shift(byBytes: laneLength)
        var value = CRC32Combination.combine(~crc0, ~crc1, shift: shift)
        value = CRC32Combination.combine(value, ~crc2, shift: shift)
        value = CRC32Combination.combine(value, ~crc3, shift: shift)
        value = CRC32Combination.combine(value, ~crc4, shift: shift)
        value = CRC32Combination.combine(value, ~crc5, shift: shift)
        value = CRC32Combination.combine(value, ~crc6, shift: shift)
        value = CRC32Combination.combine(value, ~crc7, shift: shift)
        return ~value
    }

    /// Eight bytes of slicing: the register's contribution after the 8 bytes at `pointer`, taken
    /// from tables `slices` to `slices + 7` (tables 8… when 8 more bytes follow in the same step).
    @inline(__always)
    private static func step8(
        _ crc: UInt32, _ pointer: UnsafeRawPointer, _ table: UnsafePointer<UInt32>, slices: Int
    ) -> UInt32 {
        let low = UInt32(littleEndian: pointer.loadUnaligned(as: UInt32.self)) ^ crc
        let high = UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        let a = lookup(table, slices + 7, low) ^ lookup(table, slices + 6, low &>> 8)
        let b = lookup(table, slices + 5, low &>> 16) ^ lookup(table, slices + 4, low &>> 24)
        let c = lookup(table, slices + 3, high) ^ lookup(table, slices + 2, high &>> 8)
        let d = lookup(table, slices + 1, high &>> 16) ^ lookup(table, slices, high &>> 24)
        return (a ^ b) ^ (c ^ d)
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
    /// Allocated once and never freed nor written after: safe to share between threads.
    nonisolated(unsafe) static let shared: UnsafePointer<UInt32> = {
        let tables = UnsafeMutablePointer<UInt32>.allocate(capacity: 16 * 256)
        tables.initialize(repeating: 0, count: 16 * 256)
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
        return UnsafePointer(tables)
    }()
}
