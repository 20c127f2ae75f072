/// Raw deflate streams (RFC 1951) written by hand.
public enum Deflate {
    /// `data` in stored (uncompressed) blocks: valid deflate, no compression.
    public static func storedBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var chunks = stride(from: 0, to: data.count, by: 65535).map {
            data[$0..<Swift.min($0 + 65535, data.count)]
        }
        if chunks.isEmpty { chunks = [[]] }
        for (index, chunk) in chunks.enumerated() {
            out.append(index == chunks.count - 1 ? 1 : 0)  // BFINAL, BTYPE 00
            let length = UInt16(chunk.count)
            out.le16(length)
            out.le16(~length)
            out += chunk
        }
        return out
    }

    /// A fixed-Huffman stream inflating to `count` zero bytes (one literal, then copies of 258
    /// bytes at distance 1): a few KiB that inflate to as much as asked.
    public static func zeros(count: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01, fixed Huffman
        bits.writeCode(0x30, length: 8)  // literal 0
        var remaining = count - 1
        while remaining >= 258 {
            bits.writeCode(0xC5, length: 8)  // length symbol 285: 258 bytes
            bits.writeCode(0, length: 5)  // distance code 0: distance 1
            remaining -= 258
        }
        for _ in 0..<remaining { bits.writeCode(0x30, length: 8) }
        bits.writeCode(0, length: 7)  // end of block
        return bits.bytes
    }

    private struct BitWriter {
        var bytes: [UInt8] = []
        private var used = 8

        /// Writes `count` bits of `value`, least significant first (header fields).
        mutating func write(_ value: UInt32, count: Int) {
            for bit in 0..<count { append(UInt8((value >> bit) & 1)) }
        }

        /// Writes a Huffman code, most significant bit first.
        mutating func writeCode(_ code: UInt32, length: Int) {
            for bit in (0..<length).reversed() { append(UInt8((code >> bit) & 1)) }
        }

        private mutating func append(_ bit: UInt8) {
            if used == 8 {
                bytes.append(0)
                used = 0
            }
            bytes[bytes.count - 1] |= bit << used
            used += 1
        }
    }
}
