/// Checks that bytes are exactly one JSON text as RFC 8259 defines it, before Foundation parses
/// them: Foundation's parser also takes trailing commas (`{"a": 1,}`) and a leading byte order
/// mark, which Nordic's tools (Python's `json`) refuse. This only checks the syntax; it builds
/// nothing, and keeps no more state than one byte per open container.
package enum JSONSyntax {
    package struct Invalid: Error {
        /// What is wrong.
        package var what: String
        /// Where: the byte offset into the text; nil for the text as a whole.
        package var offset: Int?

        /// What and where, by byte offset.
        package var reason: String { offset.map { "\(what) at byte \($0)" } ?? what }

        /// What and where, by line and column (1-based, columns in characters) in `bytes`.
        package func located(in bytes: [UInt8]) -> String {
            guard let offset else { return what }
            let before = bytes[..<min(offset, bytes.count)]
            let line = before.count(where: { $0 == 0x0A }) + 1
            let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            let column = String(decoding: bytes[lineStart..<before.endIndex], as: UTF8.self).count + 1
            return "line \(line), column \(column): \(what)"
        }
    }

    /// Deeper nesting is refused (no manifest needs more than four levels).
    package static let maximumDepth = 512

    /// Checks the syntax; with `rejectingDuplicateKeys`, also that no object names a member twice
    /// (RFC 8259 leaves that open; Python's `json`, and so Nordic's tools, take the last).
    package static func validate(_ bytes: [UInt8], rejectingDuplicateKeys: Bool = false) throws(Invalid) {
        var scanner = Scanner(bytes: bytes, rejectsDuplicateKeys: rejectingDuplicateKeys)
        try scanner.text()
    }

    private struct Scanner {
        let bytes: [UInt8]
        let rejectsDuplicateKeys: Bool
        var position = 0
        /// `{` or `[` of each open container.
        var open: [UInt8] = []
        /// The member names seen in each open object, when duplicates are refused.
        var keys: [Set<ArraySlice<UInt8>>] = []

        init(bytes: [UInt8], rejectsDuplicateKeys: Bool) {
            self.bytes = bytes
            self.rejectsDuplicateKeys = rejectsDuplicateKeys
        }

        private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        private func fail(_ what: String) -> Invalid {
            Invalid(what: what, offset: position)
        }

        mutating func text() throws(Invalid) {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                throw Invalid(what: "it starts with a byte order mark, which JSON texts must not have")
            }
            guard String(validating: bytes, as: UTF8.self) != nil else {
                throw Invalid(what: "it is not UTF-8 text")
            }
            var expectingValue = true
            while true {
                skipWhitespace()
                if expectingValue {
                    switch current {
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        let opener = current!
                        guard open.count < JSONSyntax.maximumDepth else { throw fail("nested too deep") }
                        open.append(opener)
                        if opener == UInt8(ascii: "{") { keys.append([]) }
                        position += 1
                        skipWhitespace()
                        if current == opener + 2 {  // `}` or `]`: empty
                            close(opener)
                            position += 1
                            expectingValue = false
                        } else if opener == UInt8(ascii: "{") {
                            try key()
                        }
                        continue
                    default:
                        try scalar()
                        expectingValue = false
                    }
                } else {
                    guard let container = open.last else { break }
                    switch current {
                    case UInt8(ascii: ","):
                        position += 1
                        if container == UInt8(ascii: "{") { try key() }
                        expectingValue = true
                    case container + 2:
                        close(container)
                        position += 1
                    case nil:
                        throw fail("the text ends inside an object or array")
                    default:
                        throw fail("expected ',' or the end of the object or array")
                    }
                }
            }
            guard current == nil else { throw fail("text after the JSON value") }
        }

        private mutating func close(_ opener: UInt8) {
            open.removeLast()
            if opener == UInt8(ascii: "{") { keys.removeLast() }
        }

        /// `"name" :` inside an object (a trailing comma fails here).
        private mutating func key() throws(Invalid) {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let start = position
            try string()
            if rejectsDuplicateKeys, !keys[keys.count - 1].insert(bytes[start..<position]).inserted {
                let name = String(decoding: bytes[start..<position], as: UTF8.self)
                position = start
                throw fail("\(name) is named twice in one object")
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw fail("expected ':'") }
            position += 1
        }

        private mutating func scalar() throws(Invalid) {
            guard let byte = current else { throw fail("the text ends where a value should be") }
            switch byte {
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            default: throw fail("expected a value")
            }
        }

        private mutating func literal(_ word: String) throws(Invalid) {
            let expected = Array(word.utf8)
            guard bytes[position...].starts(with: expected) else { throw fail("expected \(word)") }
            position += expected.count
        }

        private mutating func string() throws(Invalid) {
            position += 1  // opening quote
            while let byte = current {
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { break }
                    position += 1
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            guard let digit = current, digit.isHexDigit else { throw fail("bad \\u escape") }
                            position += 1
                        }
                    } else if !Array(#""\/bfnrt"#.utf8).contains(escaped) {
                        throw fail("bad escape")
                    }
                case 0..<0x20:
                    throw fail("a control character inside a string")
                default:
                    continue
                }
            }
            throw fail("the text ends inside a string")
        }

        private mutating func number() throws(Invalid) {
            if current == UInt8(ascii: "-") { position += 1 }
            if current == UInt8(ascii: "0") {
                position += 1
            } else {
                guard try digits() > 0 else { throw fail("a number without digits") }
            }
            if current == UInt8(ascii: ".") {
                position += 1
                guard try digits() > 0 else { throw fail("no digits after a decimal point") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard try digits() > 0 else { throw fail("no digits in an exponent") }
            }
        }

        private mutating func digits() throws(Invalid) -> Int {
            let start = position
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
            return position - start
        }

        private mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                position += 1
            }
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
