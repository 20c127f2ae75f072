/// Checks every local header of a zip against its central directory record.
///
/// libzip reads entries through the central directory and only skips over the local header, so a
/// local header that names another file or declares other sizes would go unnoticed. libzip's own
/// check (ZIP_CHECKCONS, in the 1.7 series Debian ships) also refuses archives that Info-ZIP
/// writes to a pipe (`zip - …`): with a data descriptor it requires zero CRC and sizes in the local
/// header, while Info-ZIP writes the real uncompressed size there. This check follows the zip
/// specification's rule instead: with a data descriptor, each local value is zero or the real one.
struct ZipLocalHeaders {
    /// One central directory record, as far as this check needs it.
    struct Record {
        var name: ArraySlice<UInt8>
        var flags: UInt16
        var method: UInt16
        var crc32: UInt32
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        var localHeaderOffset: UInt64
    }

    struct Inconsistent: Error {
        var reason: String
    }

    private let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The central directory records in order, or a reason they cannot be walked.
    func records() throws(Inconsistent) -> [Record] {
        let (count, start) = try centralDirectory()
        var records: [Record] = []
        var position = start
        for index in 0..<count {
            guard position + 46 <= bytes.count, u32(position) == 0x0201_4B50 else {
                throw Inconsistent(
                    reason: "central directory record \(index) is not where the directory says")
            }
            let nameLength = Int(u16(position + 28))
            let extraLength = Int(u16(position + 30))
            let commentLength = Int(u16(position + 32))
            let nameStart = position + 46
            let end = nameStart + nameLength + extraLength + commentLength
            guard end <= bytes.count else {
                throw Inconsistent(reason: "central directory record \(index) runs past the end of the file")
            }
            var record = Record(
                name: slice(nameStart, nameLength), flags: u16(position + 8), method: u16(position + 10),
                crc32: u32(position + 16), compressedSize: UInt64(u32(position + 20)),
                uncompressedSize: UInt64(u32(position + 24)), localHeaderOffset: UInt64(u32(position + 42)))
            readZip64(extra: nameStart + nameLength, length: extraLength, into: &record)
            records.append(record)
            position = end
        }
        return records
    }

    /// Compares the local header of `record` with it.
    func check(_ record: Record) throws(Inconsistent) {
        guard bytes.count >= 30, record.localHeaderOffset <= UInt64(bytes.count - 30) else {
            throw Inconsistent(reason: "its local header lies outside the file")
        }
        let at = Int(record.localHeaderOffset)
        guard u32(at) == 0x0403_4B50 else { throw Inconsistent(reason: "its local header is missing") }
        let flags = u16(at + 6)
        let nameLength = Int(u16(at + 26))
        let extraLength = Int(u16(at + 28))
        guard at + 30 + nameLength + extraLength <= bytes.count else {
            throw Inconsistent(reason: "its local header runs past the end of the file")
        }
        guard slice(at + 30, nameLength).elementsEqual(record.name) else {
            throw Inconsistent(reason: "its local header names another file")
        }
        guard u16(at + 8) == record.method, flags & 1 == record.flags & 1 else {
            throw Inconsistent(reason: "its local header gives another compression method or encryption flag")
        }
        let dataStart = UInt64(at + 30 + nameLength + extraLength)
        guard record.compressedSize <= UInt64(bytes.count) - dataStart else {
            throw Inconsistent(reason: "its data runs past the end of the file")
        }
        // 0xFFFFFFFF sizes point at a ZIP64 field; the central directory's values (already
        // resolved) are then the ones to trust, and inflating checks them.
        let local: [(UInt64, UInt64)] = [
            (UInt64(u32(at + 14)), UInt64(record.crc32)),
            (UInt64(u32(at + 18)), record.compressedSize),
            (UInt64(u32(at + 22)), record.uncompressedSize),
        ]
        let hasDescriptor = flags & 0x08 != 0
        for (index, (value, central)) in local.enumerated() where value != central {
            if index > 0 && value == 0xFFFF_FFFF { continue }
            if hasDescriptor && value == 0 { continue }
            throw Inconsistent(
                reason: "its local header declares other sizes or CRC-32 than the central directory")
        }
    }

    // MARK: - Finding the directory

    /// Entry count and offset of the first record, from the (ZIP64) end of central directory.
    private func centralDirectory() throws(Inconsistent) -> (count: Int, start: Int) {
        guard bytes.count >= 22 else { throw Inconsistent(reason: "no end of central directory") }
        // The end record is the last one whose comment reaches the end of the file exactly; failing
        // that, the last one at all (libzip tolerates bytes after it).
        var candidates: [Int] = []
        var at = bytes.count - 22
        let lowest = max(0, bytes.count - 22 - 0xFFFF)
        while at >= lowest {
            if u32(at) == 0x0605_4B50 { candidates.append(at) }
            at -= 1
        }
        guard
            let end = candidates.first(where: { $0 + 22 + Int(u16($0 + 20)) == bytes.count })
                ?? candidates.first
        else { throw Inconsistent(reason: "no end of central directory") }
        var count = UInt64(u16(end + 10))
        var start = UInt64(u32(end + 16))
        if count == 0xFFFF || start == 0xFFFF_FFFF, end >= 20, u32(end - 20) == 0x0706_4B50 {
            let zip64End = u64(end - 20 + 8)
            guard bytes.count >= 56, zip64End <= UInt64(bytes.count - 56), u32(Int(zip64End)) == 0x0606_4B50
            else {
                throw Inconsistent(reason: "the ZIP64 end of central directory is missing")
            }
            count = u64(Int(zip64End) + 32)
            start = u64(Int(zip64End) + 48)
        }
        guard start <= UInt64(bytes.count), count <= UInt64(bytes.count) / 46 else {
            throw Inconsistent(reason: "the end of central directory points outside the file")
        }
        return (Int(count), Int(start))
    }

    /// Applies a ZIP64 extended information field (header 0x0001) to the values it replaces.
    private func readZip64(extra start: Int, length: Int, into record: inout Record) {
        var position = start
        while position + 4 <= start + length {
            let id = u16(position)
            let size = Int(u16(position + 2))
            let body = position + 4
            guard body + size <= start + length else { return }
            if id == 0x0001 {
                var field = body
                func next(_ value: inout UInt64, ifSaturated saturated: Bool) {
                    guard saturated, field + 8 <= body + size else { return }
                    value = u64(field)
                    field += 8
                }
                next(&record.uncompressedSize, ifSaturated: record.uncompressedSize == 0xFFFF_FFFF)
                next(&record.compressedSize, ifSaturated: record.compressedSize == 0xFFFF_FFFF)
                next(&record.localHeaderOffset, ifSaturated: record.localHeaderOffset == 0xFFFF_FFFF)
                return
            }
            position = body + size
        }
    }

    // MARK: - Little-endian fields

    private func u16(_ at: Int) -> UInt16 {
        UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    private func u32(_ at: Int) -> UInt32 {
        UInt32(u16(at)) | UInt32(u16(at + 2)) << 16
    }

    private func u64(_ at: Int) -> UInt64 {
        UInt64(u32(at)) | UInt64(u32(at + 4)) << 32
    }

    private func slice(_ at: Int, _ count: Int) -> ArraySlice<UInt8> {
        ArraySlice(UnsafeRawBufferPointer(rebasing: bytes[at..<at + count]))
    }
}
