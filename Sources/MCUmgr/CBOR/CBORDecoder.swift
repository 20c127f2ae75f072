/// Reads one CBOR item (RFC 8949) into a ``CBORValue``, and never traps, whatever the bytes.
///
/// Definite and indefinite lengths are both read: Zephyr's zcbor writes every map and array of an
/// SMP response with indefinite length unless the firmware sets `CONFIG_ZCBOR_CANONICAL`.
/// Nesting is bounded, every length is checked against the bytes left before anything is
/// allocated, and heads must be in their shortest form. Every refusal is a
/// ``CBORDecodingError``.
public enum CBORDecoder {
    /// The default bound on nested arrays, maps and indefinite strings; SMP needs three.
    public static let defaultMaximumDepth = 16

    /// Decodes `bytes`, which must hold exactly one item.
    public static func decode(
        _ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth
    ) throws(CBORDecodingError) -> CBORValue {
        var reader = Reader(bytes: bytes, maximumDepth: maximumDepth)
        let value = try reader.item(depth: 0)
        guard reader.position == bytes.count else {
            throw CBORDecodingError(.trailingBytes, at: reader.position)
        }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        let maximumDepth: Int
        var position = 0

        init(bytes: [UInt8], maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        private var remaining: Int { bytes.count - position }

        private func fail(_ kind: CBORDecodingError.Kind, at offset: Int? = nil) -> CBORDecodingError {
            CBORDecodingError(kind, at: offset ?? position)
        }

        private mutating func byte() throws(CBORDecodingError) -> UInt8 {
            guard position < bytes.count else { throw fail(.truncated) }
            defer { position += 1 }
            return bytes[position]
        }

        /// The argument of a head with additional information `info` (0…27), shortest form only.
        private mutating func argument(_ info: UInt8, head: Int) throws(CBORDecodingError) -> UInt64 {
            let width: Int
            switch info {
            case ..<24: return UInt64(info)
            case 24: width = 1
            case 25: width = 2
            case 26: width = 4
            case 27: width = 8
            default: throw fail(.reservedAdditionalInformation, at: head)
            }
            guard remaining >= width else { throw fail(.truncated) }
            var value: UInt64 = 0
            for index in position..<position + width { value = value << 8 | UInt64(bytes[index]) }
            position += width
            guard CBORValue.headCount(argument: value) == 1 + width else {
                throw fail(.nonShortestEncoding, at: head)
            }
            return value
        }

        /// The argument of a head as a count or length that fits in the bytes after the head,
        /// each element taking at least `unit` bytes. (The argument is read first: its own bytes
        /// are not among those left.)
        private mutating func boundedLength(_ info: UInt8, unit: Int, head: Int) throws(CBORDecodingError)
            -> Int
        {
            let value = try argument(info, head: head)
            guard value <= UInt64(remaining / unit) else { throw fail(.truncated, at: head) }
            return Int(value)
        }

        mutating func item(depth: Int) throws(CBORDecodingError) -> CBORValue {
            let head = position
            let initial = try byte()
            let major = initial >> 5
            let info = initial & 0x1F
            if info == 31 {
                return try indefinite(major: major, depth: depth, head: head)
            }
            if (28...30).contains(info) { throw fail(.reservedAdditionalInformation, at: head) }
            switch major {
            case 0:
                return .unsigned(try argument(info, head: head))
            case 1:
                return .negative(try argument(info, head: head))
            case 2:
                let count = try boundedLength(info, unit: 1, head: head)
                return .bytes(Array(take(count)))
            case 3:
                let count = try boundedLength(info, unit: 1, head: head)
                return .text(try text(take(count), head: head))
            case 4:
                let count = try boundedLength(info, unit: 1, head: head)
                try enter(depth, head: head)
                var items: [CBORValue] = []
                items.reserveCapacity(count)
                for _ in 0..<count { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                let count = try boundedLength(info, unit: 2, head: head)
                try enter(depth, head: head)
                var entries: [CBORValue: CBORValue] = [:]
                entries.reserveCapacity(count)
                for _ in 0..<count { try entry(into: &entries, depth: depth) }
                return .map(entries)
            case 6:
                throw fail(.unsupportedItem, at: head)
            default:
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                default: throw fail(.unsupportedItem, at: head)
                }
            }
        }

        private mutating func indefinite(
            major: UInt8, depth: Int, head: Int
        ) throws(CBORDecodingError) -> CBORValue {
            switch major {
            case 2, 3:
                try enter(depth, head: head)
                var joined: [UInt8] = []
                while try !atBreak() {
                    let chunkHead = position
                    let initial = try byte()
                    guard initial >> 5 == major, initial & 0x1F != 31 else {
                        throw fail(.invalidChunk, at: chunkHead)
                    }
                    let count = try boundedLength(initial & 0x1F, unit: 1, head: chunkHead)
                    let chunk = take(count)
                    // A text chunk must be valid UTF-8 on its own (RFC 8949 §3.2.3).
                    if major == 3 { _ = try text(chunk, head: chunkHead) }
                    joined += chunk
                }
                return major == 2 ? .bytes(joined) : .text(try text(joined[...], head: head))
            case 4:
                try enter(depth, head: head)
                var items: [CBORValue] = []
                while try !atBreak() { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                try enter(depth, head: head)
                var entries: [CBORValue: CBORValue] = [:]
                while try !atBreak() { try entry(into: &entries, depth: depth) }
                return .map(entries)
            case 7:
                throw fail(.unexpectedBreak, at: head)
            default:
                throw fail(.indefiniteLengthNotAllowed, at: head)
            }
        }

        /// Whether the next byte is a break, consuming it if so.
        private mutating func atBreak() throws(CBORDecodingError) -> Bool {
            guard position < bytes.count else { throw fail(.truncated) }
            guard bytes[position] == 0xFF else { return false }
            position += 1
            return true
        }

        private mutating func entry(
            into entries: inout [CBORValue: CBORValue], depth: Int
        ) throws(CBORDecodingError) {
            let keyOffset = position
            let key = try item(depth: depth + 1)
            let value = try item(depth: depth + 1)
            guard entries.updateValue(value, forKey: key) == nil else {
                throw fail(.duplicateKey, at: keyOffset)
            }
        }

        /// Checks that one more level of nesting below `depth` is allowed.
        private func enter(_ depth: Int, head: Int) throws(CBORDecodingError) {
            guard depth < maximumDepth else { throw fail(.tooDeep, at: head) }
        }

        private mutating func take(_ count: Int) -> ArraySlice<UInt8> {
            defer { position += count }
            return bytes[position..<position + count]
        }

        private func text(_ utf8: ArraySlice<UInt8>, head: Int) throws(CBORDecodingError) -> String {
            guard let text = String(validating: utf8, as: UTF8.self) else {
                throw fail(.invalidUTF8, at: head)
            }
            return text
        }
    }
}
