import DFUSupport

/// Intel HEX to a binary image, the way Nordic's packagers cut one: from the lowest to the highest
/// address, gaps filled with 0xFF, the MBR (below 0x1000) and UICR (0x10000000 and up) dropped,
/// padded with 0xFF to a multiple of 4 bytes.
///
/// Records 00 (data), 01 (end of file), 02 (extended segment address), 03 (start segment
/// address, ignored), 04 (extended linear address) and 05 (start linear address, ignored); every
/// checksum is verified, and overlapping data is refused.
package enum IntelHex {
    /// Addresses kept: above the MBR, below the UICR.
    static let keptAddresses = 0x1000..<0x1000_0000

    package struct Invalid: Error {
        var reason: String
        /// The data is valid but spans more than the size allowed.
        var tooLarge = false
    }

    /// The image `text` describes; empty when it has no data in ``keptAddresses``. Padded to a
    /// multiple of 4 bytes unless `wordAligned` is false (an MCUboot image keeps its length).
    package static func image(from text: [UInt8], maximumSize: Int, wordAligned: Bool = true) throws(Invalid)
        -> [UInt8]
    {
        var chunks: [(address: Int, bytes: ArraySlice<UInt8>)] = []
        var base = 0
        var sawEnd = false
        var lineNumber = 0
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == 0x0A || $0 == 0x0D })
        {
            lineNumber += 1
            let record = line.drop { $0 == 0x20 || $0 == 0x09 }
            if record.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let fields = try decode(record, line: lineNumber)
            let length = Int(fields[0])
            let offset = Int(fields[1]) << 8 | Int(fields[2])
            let payload = fields[4..<4 + length]
            func value16() throws(Invalid) -> Int {
                guard length == 2 else {
                    throw Invalid(reason: "line \(lineNumber): address record of \(length) bytes")
                }
                return Int(payload.first!) << 8 | Int(payload.last!)
            }
            switch fields[3] {
            case 0x00: chunks.append((base + offset, payload))
            case 0x01: sawEnd = true
            case 0x02: base = try value16() << 4
            case 0x04: base = try value16() << 16
            case 0x03, 0x05: break
            case let type: throw Invalid(reason: "line \(lineNumber): unknown record type \(type)")
            }
            if sawEnd { break }
        }
        guard sawEnd else { throw Invalid(reason: "no end-of-file record: the file looks truncated") }
        return try assemble(chunks, maximumSize: maximumSize, wordAligned: wordAligned)
    }

    /// The bytes of one `:LLAAAATT…CC` record, checksum verified.
    private static func decode(_ record: ArraySlice<UInt8>, line: Int) throws(Invalid) -> [UInt8] {
        var digits = record.dropFirst()
        while let last = digits.last, last == 0x20 || last == 0x09 { digits.removeLast() }
        guard record.first == UInt8(ascii: ":"), digits.count >= 10, digits.count % 2 == 0 else {
            throw Invalid(reason: "line \(line) is not an Intel HEX record")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            guard let high = digits[index].hexDigitValue, let low = digits[index + 1].hexDigitValue else {
                throw Invalid(reason: "line \(line) has a character that is not a hex digit")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        guard bytes.count == Int(bytes[0]) + 5 else {
            throw Invalid(
                reason:
                    "line \(line): the record length byte says \(bytes[0]), the line holds \(bytes.count - 5)"
            )
        }
        guard bytes.reduce(0, &+) == 0 else { throw Invalid(reason: "line \(line): bad checksum") }
        return bytes
    }

    /// Lays the kept parts of the chunks into one 0xFF-filled image.
    private static func assemble(
        _ chunks: [(address: Int, bytes: ArraySlice<UInt8>)], maximumSize: Int, wordAligned: Bool
    ) throws(Invalid) -> [UInt8] {
        let kept: [(address: Int, bytes: ArraySlice<UInt8>)] = chunks.compactMap { chunk in
            let start = max(chunk.address, keptAddresses.lowerBound)
            let end = min(chunk.address + chunk.bytes.count, keptAddresses.upperBound)
            guard start < end else { return nil }
            let from = chunk.bytes.startIndex + (start - chunk.address)
            return (start, chunk.bytes[from..<from + (end - start)])
        }.sorted { $0.address < $1.address }
        guard let first = kept.first else { return [] }
        var end = first.address
        for chunk in kept {
            guard chunk.address >= end else {
                throw Invalid(reason: "records overlap at address 0x\(String(chunk.address, radix: 16))")
            }
            end = chunk.address + chunk.bytes.count
        }
        let size = wordAligned ? (end - first.address + 3) & ~3 : end - first.address
        guard size <= maximumSize else {
            throw Invalid(
                reason: "the image spans \(size) bytes, more than the \(maximumSize) allowed", tooLarge: true)
        }
        var image = [UInt8](repeating: 0xFF, count: size)
        for chunk in kept {
            let offset = chunk.address - first.address
            image.replaceSubrange(offset..<offset + chunk.bytes.count, with: chunk.bytes)
        }
        return image
    }
}
