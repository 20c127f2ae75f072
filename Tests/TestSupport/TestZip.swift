import NordicDFU

/// A small zip writer for building well-formed and deliberately broken archives in tests.
public struct TestZip {
    public struct Entry {
        public var name: String
        /// The uncompressed contents.
        public var data: [UInt8]
        /// Compression method written in both headers.
        public var method: UInt16 = 0
        /// The bytes stored for the entry; defaults to `data` (stored) or a deflate stream of
        /// stored blocks holding `data` (method 8).
        public var payload: [UInt8]?
        /// Overrides of what the headers declare.
        public var crc32: UInt32?
        public var uncompressedSize: UInt32?
        public var flags: UInt16 = 0
        /// What the local header alone declares (CRC-32, compressed, uncompressed size), when it
        /// differs from the central directory.
        public var localHeader: (crc32: UInt32, compressedSize: UInt32, uncompressedSize: UInt32)?
        /// Sets flag bit 3 and writes a data descriptor after the data.
        public var dataDescriptor = false
        /// Overrides the local header's name.
        public var localName: String?

        public init(_ name: String, _ data: [UInt8], method: UInt16 = 0) {
            self.name = name
            self.data = data
            self.method = method
        }

        /// The bytes stored for the entry.
        public var storedBytes: [UInt8] {
            if let payload { return payload }
            return method == 8 ? Deflate.storedBlocks(data) : data
        }
    }

    public var entries: [Entry]

    public init(_ entries: [Entry]) { self.entries = entries }

    /// Name → contents, all stored.
    public init(files: [(String, [UInt8])]) { entries = files.map { Entry($0.0, $0.1) } }

    /// The archive.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let offset = UInt32(out.count)
            let name = Array(entry.name.utf8)
            let stored = entry.storedBytes
            let crc = entry.crc32 ?? CRC32.checksum(entry.data)
            let size = entry.uncompressedSize ?? UInt32(entry.data.count)
            let flags = entry.flags | (entry.dataDescriptor ? 0x08 : 0)
            let local = entry.localHeader ?? (crc, UInt32(stored.count), size)
            let localName = entry.localName.map { Array($0.utf8) } ?? name
            // Local header.
            out.le32(0x0403_4B50)
            out.le16(20)
            out.le16(flags)
            out.le16(entry.method)
            out.le16(0)  // time
            out.le16(0x5821)  // date 2024-01-01
            out.le32(local.crc32)
            out.le32(local.compressedSize)
            out.le32(local.uncompressedSize)
            out.le16(UInt16(localName.count))
            out.le16(0)
            out += localName
            out += stored
            if entry.dataDescriptor {
                out.le32(0x0807_4B50)
                out.le32(crc)
                out.le32(UInt32(stored.count))
                out.le32(size)
            }
            // Central directory record.
            central.le32(0x0201_4B50)
            central.le16(20)
            central.le16(20)
            central.le16(flags)
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

/// Stored-only zips from names and contents (the engine tests' name for ``TestZip``).
public enum StoredZip {
    /// A zip of `entries`, in order, all stored.
    public static func make(_ entries: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        TestZip(files: entries.map { ($0.name, $0.bytes) }).bytes
    }
}
