import Foundation

/// Where the elements of one array member of a JSON object lie in its bytes, found in one pass
/// without reading them: each element's bytes can then be copied as written instead of being
/// parsed and serialized again. The bytes must already be known to be valid JSON (as an
/// inventory reader read them); the scan only tells the values apart, and never reads past the
/// end of bytes that are not.
struct JSONArraySpans {
    /// The array member found: the range of the whole array (its brackets included), those of
    /// its elements, and each element's name (`array(ofMember:in:naming:)`).
    struct Found {
        var array: Range<Int>
        var elements: [Range<Int>]
        var names: [String?]
    }

    private let bytes: [UInt8]
    private var position = 0

    /// The array that is the top-level object's `key` member (its last one, as a parser keeps
    /// it), each element named by the string value of its member `name`, if it is an object
    /// that has one; nil when there is no such array.
    static func array(ofMember key: String, in data: Data, naming name: String) -> Found? {
        var scan = JSONArraySpans(bytes: [UInt8](data))
        let (key, name) = (Array(key.utf8), Array(name.utf8))
        var found: Found?
        scan.forEachMember { scan, member in
            guard decoded(scan.bytes[member]) == key, scan.peek() == UInt8(ascii: "[") else { return false }
            found = scan.arrayElements(naming: name)
            return true
        }
        return found
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// Calls `visit` with the name's range of each member of the object at `position`, which it
    /// passes, positioned at the member's value: `visit` passes the value and returns true, or
    /// returns false to have it passed.
    private mutating func forEachMember(_ visit: (inout JSONArraySpans, Range<Int>) -> Bool) {
        skipSpace()
        guard next() == UInt8(ascii: "{") else { return }
        while true {
            skipSpace()
            guard peek() == UInt8(ascii: "\"") else {
                if peek() == UInt8(ascii: "}") { _ = next() }  // an empty object's end
                return
            }
            let name = skipValue()
            skipSpace()
            _ = next()  // ":"
            skipSpace()
            if !visit(&self, name) { _ = skipValue() }
            skipSpace()
            if next() != UInt8(ascii: ",") { return }
        }
    }

    /// The array at `position`, which it passes, its elements named by their member `name`.
    private mutating func arrayElements(naming name: [UInt8]) -> Found {
        var found = Found(array: position..<position, elements: [], names: [])
        _ = next()  // "["
        skipSpace()
        if peek() == UInt8(ascii: "]") {
            _ = next()
        } else {
            repeat {
                skipSpace()
                let start = position
                found.names.append(peek() == UInt8(ascii: "{") ? stringMember(name) : nil)
                if position == start { _ = skipValue() }
                found.elements.append(start..<position)
                skipSpace()
            } while next() == UInt8(ascii: ",")
        }
        found.array = found.array.lowerBound..<position
        return found
    }

    /// The string value of the member `key` of the object at `position`, which it passes.
    private mutating func stringMember(_ key: [UInt8]) -> String? {
        var value: String?
        forEachMember { scan, member in
            guard Self.decoded(scan.bytes[member]) == key, scan.peek() == UInt8(ascii: "\"") else {
                return false
            }
            value = String(validating: Self.decoded(scan.bytes[scan.skipValue()]), as: UTF8.self)
            return true
        }
        return value
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
            if byte == UInt8(ascii: "\\") { _ = next() }
        }
    }

    private mutating func skipSpace() {
        while let byte = peek(), [0x20, 0x09, 0x0A, 0x0D].contains(byte) { position += 1 }
    }

    private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    /// The byte at `position`, passed; nil at the end, where `position` stays.
    private mutating func next() -> UInt8? {
        guard let byte = peek() else { return nil }
        position += 1
        return byte
    }

    private static func ends(_ byte: UInt8) -> Bool {
        [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(byte)
    }

    /// A string's text (with its quotes), its escapes read; a string without any is its bytes.
    private static func decoded(_ name: ArraySlice<UInt8>) -> [UInt8] {
        guard name.contains(UInt8(ascii: "\\")) else { return Array(name.dropFirst().dropLast()) }
        let text = try? JSONSerialization.jsonObject(with: Data(name), options: .fragmentsAllowed) as? String
        return Array((text ?? "").utf8)
    }
}
