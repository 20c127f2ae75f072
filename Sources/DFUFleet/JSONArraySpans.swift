import Foundation

/// Where the elements of one array member of a JSON object lie in its bytes, found in one pass
/// without reading them: each element's bytes can then be copied as written instead of being
/// parsed and serialized again. The bytes must already be known to be valid JSON (as
/// `JSONSerialization` read them); the scan only tells the values apart.
struct JSONArraySpans {
    private let bytes: [UInt8]
    private var position = 0

    /// The ranges of the elements of the array that is the top-level object's `key` member (its
    /// last one, as a parser keeps it); nil when there is no such array.
    static func elements(ofMember key: String, in data: Data) -> [Range<Int>]? {
        var scan = JSONArraySpans(bytes: [UInt8](data))
        return scan.elements(ofMember: Array(key.utf8))
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func elements(ofMember key: [UInt8]) -> [Range<Int>]? {
        skipSpace()
        guard next() == UInt8(ascii: "{") else { return nil }
        var found: [Range<Int>]?
        while true {
            skipSpace()
            guard peek() == UInt8(ascii: "\"") else { return found }  // "}": the object's end
            let name = skipValue()
            skipSpace()
            position += 1  // ":"
            skipSpace()
            if Self.decoded(bytes[name]) == key, peek() == UInt8(ascii: "[") {
                found = arrayElements()
            } else {
                _ = skipValue()
            }
            skipSpace()
            if next() != UInt8(ascii: ",") { return found }
        }
    }

    /// The elements of the array at `position`, which it passes.
    private mutating func arrayElements() -> [Range<Int>] {
        position += 1  // "["
        var elements: [Range<Int>] = []
        skipSpace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            return elements
        }
        repeat {
            skipSpace()
            elements.append(skipValue())
            skipSpace()
        } while next() == UInt8(ascii: ",")
        return elements
    }

    /// Passes one value (a string, object, array, number or literal) and gives its range.
    private mutating func skipValue() -> Range<Int> {
        let start = position
        var depth = 0
        repeat {
            guard let byte = next() else { break }  // the end: not in valid JSON, but never past it
            switch byte {
            case UInt8(ascii: "\""): skipStringRest()
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default:
                // a number or literal ends before the first byte that cannot be in it
                while depth == 0, let byte = peek(), !Self.ends(byte) { position += 1 }
            }
        } while depth > 0
        return start..<position
    }

    /// Passes the rest of a string whose opening quote was read.
    private mutating func skipStringRest() {
        while let byte = next(), byte != UInt8(ascii: "\"") {
            if byte == UInt8(ascii: "\\") { position += 1 }
        }
    }

    private mutating func skipSpace() {
        while let byte = peek(), [0x20, 0x09, 0x0A, 0x0D].contains(byte) { position += 1 }
    }

    private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func next() -> UInt8? {
        defer { position += 1 }
        return peek()
    }

    private static func ends(_ byte: UInt8) -> Bool {
        [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(byte)
    }

    /// A member name's text (with its quotes), its escapes read; a name without any is its bytes.
    private static func decoded(_ name: ArraySlice<UInt8>) -> [UInt8] {
        guard name.contains(UInt8(ascii: "\\")) else { return Array(name.dropFirst().dropLast()) }
        let text = try? JSONSerialization.jsonObject(with: Data(name), options: .fragmentsAllowed) as? String
        return Array((text ?? "").utf8)
    }
}
