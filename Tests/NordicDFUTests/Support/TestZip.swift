import NordicDFU

/// A small zip writer for building well-formed and deliberately broken archives in tests.
struct TestZip {
    struct Entry {
        var name: String
        /// The uncompressed contents.
        var data: [UInt8]
        /// Compression method written in both headers.
        var method: UInt16 = 0
        /// The bytes stored for the entry; defaults to `data` (stored) or a deflate stream of
        /// stored blocks holding `data` (method 8).
        var payload: [UInt8]?
        /// Overrides of what the headers declare.
        var crc32: UInt32?
        var uncompressedSize: UInt32?
        var flags: UInt16 = 0

        init(_ name: String, _ data: [UInt8], method: UInt16 = 0) {
            self.name = name
            self.data = data
            self.method = method
        }

        var storedBytes: [UInt8] {
            if let payload { return payload }
            return method == 8 ? Deflate.storedBlocks(data) : data
        }
    }

    var entries: [Entry]

    init(_ entries: [Entry]) { self.entries = entries }

    /// Name → contents, all stored.
    init(files: [(String, [UInt8])]) { entries = files.map { Entry($0.0, $0.1) } }

    var bytes: [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let offset = UInt32(out.count)
            let name = Array(entry.name.utf8)
            let stored = entry.storedBytes
            let crc = entry.crc32 ?? CRC32.checksum(entry.data)
            let size = entry.uncompressedSize ?? UInt32(entry.data.count)
            // Local header.
            out.le32(0x0403_4B50)
            out.le16(20)
            out.le16(entry.flags)
            out.le16(entry.method)
            out.le16(0)  // time
            out.le16(0x5821)  // date 2024-01-01
            out.le32(crc)
            out.le32(UInt32(stored.count))
            out.le32(size)
            out.le16(UInt16(name.count))
            out.le16(0)
            out += name
            out += stored
            // Central directory record.
            central.le32(0x0201_4B50)
            central.le16(20)
            central.le16(20)
            central.le16(entry.flags)
            central.le16(entry.method)
            central.le16(0)
            central.le16(0x5821)
            central.le32(crc)
            central.le32(UInt32(stored.count))
            central.le32(size)
            central.le16(UInt16(name.count))
            central.le16(0)  // extra
            central.le16(0)  // comment
            central.le16(0)  // disk
            central.le16(0)  // internal attributes
            central.le32(0)  // external attributes
            central.le32(offset)
            central += name
        }
        let centralOffset = UInt32(out.count)
        out += central
        out.le32(0x0605_4B50)
        out.le16(0)
        out.le16(0)
        out.le16(UInt16(entries.count))
        out.le16(UInt16(entries.count))
        out.le32(UInt32(central.count))
        out.le32(centralOffset)
        out.le16(0)
        return out
    }
}

extension [UInt8] {
    mutating func le16(_ value: UInt16) { append(contentsOf: [UInt8(value & 0xFF), UInt8(value >> 8)]) }
    mutating func le32(_ value: UInt32) {
        le16(UInt16(value & 0xFFFF))
        le16(UInt16(value >> 16))
    }
}

/// Raw deflate streams (RFC 1951) written by hand.
enum Deflate {
    /// `data` in stored (uncompressed) blocks: valid deflate, no compression.
    static func storedBlocks(_ data: [UInt8]) -> [UInt8] {
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
    static func zeros(count: Int) -> [UInt8] {
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
