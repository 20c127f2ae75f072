/// Finds where fields sit in protobuf-encoded bytes without decoding them: the signature of a
/// Secure init packet covers the InitCommand bytes exactly as stored, which re-serializing the
/// decoded message would not reproduce in general.
enum ProtobufWire {
    struct Malformed: Error {
        var reason: String
    }

    /// The payload range of the length-delimited field `number` inside `range` of `bytes`; nil
    /// when absent. A field given twice is refused: protobuf would merge the two occurrences, and
    /// no single byte range would then hold what a bootloader checks.
    static func payload(
        ofField number: UInt64, in bytes: [UInt8], range: Range<Int>
    ) throws(Malformed) -> Range<Int>? {
        var position = range.lowerBound
        var found: Range<Int>?
        while position < range.upperBound {
            let key = try varint(in: bytes, at: &position, end: range.upperBound)
            let field = key >> 3
            switch key & 7 {
            case 0:
                _ = try varint(in: bytes, at: &position, end: range.upperBound)
            case 1:
                position += 8
            case 5:
                position += 4
            case 2:
                let length = try varint(in: bytes, at: &position, end: range.upperBound)
                guard length <= UInt64(range.upperBound - position) else {
                    throw Malformed(reason: "field \(field) runs past the end of its message")
                }
                let payload = position..<position + Int(length)
                if field == number {
                    guard found == nil else { throw Malformed(reason: "field \(field) is given twice") }
                    found = payload
                }
                position = payload.upperBound
            default:
                throw Malformed(reason: "field \(field) has unsupported wire type \(key & 7)")
            }
            guard position <= range.upperBound else {
                throw Malformed(reason: "field \(field) runs past the end of its message")
            }
        }
        return found
    }

    private static func varint(in bytes: [UInt8], at position: inout Int, end: Int) throws(Malformed)
        -> UInt64
    {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < end, shift < 64 {
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        throw Malformed(reason: "a varint is cut short or longer than 10 bytes")
    }
}
