import MCUmgr
import XCTest

/// What the decoder refuses, and where it says the problem is; and that what it accepts
/// survives a round trip.
final class CBORDecoderTests: XCTestCase {
    private func assertRefused(
        _ text: String, _ kind: CBORDecodingError.Kind, at offset: Int? = nil, maximumDepth: Int = 16,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            let value = try CBORDecoder.decode(hex(text), maximumDepth: maximumDepth)
            XCTFail("\(text) decoded to \(value)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.kind, kind, text, file: file, line: line)
            if let offset { XCTAssertEqual(error.offset, offset, text, file: file, line: line) }
        }
    }

    func testTruncatedItemsAreRefused() {
        assertRefused("", .truncated, at: 0)
        assertRefused("1a0000", .truncated)
        assertRefused("6261", .truncated, at: 0)
        assertRefused("8201", .truncated, at: 0)
        assertRefused("820181", .truncated, at: 2)
        assertRefused("a16161", .truncated)
        assertRefused("5f4100", .truncated)
        assertRefused("9f01", .truncated)
    }

    func testLengthsBeyondTheBytesAreRefusedBeforeAllocating() {
        assertRefused("5bffffffffffffffff", .truncated, at: 0)
        assertRefused("7b7fffffffffffffff", .truncated, at: 0)
        assertRefused("9b000000010000000000", .truncated, at: 0)
        // A map of n entries needs at least 2n bytes.
        assertRefused("a3010203040581", .truncated, at: 6)
        assertRefused("a30102030405", .truncated, at: 0)
        // The head's own bytes do not count as bytes left (found by FuzzSMP).
        assertRefused("7818" + String(repeating: "61", count: 23), .truncated, at: 0)
        assertRefused("5a00010000" + String(repeating: "00", count: 65_535), .truncated, at: 0)
        assertRefused("bf61617818" + String(repeating: "62", count: 23), .truncated, at: 3)
        assertRefused("5f5818" + String(repeating: "00", count: 23), .truncated, at: 1)
    }

    func testNonShortestHeadsAreRefused() {
        assertRefused("1805", .nonShortestEncoding, at: 0)
        assertRefused("190017", .nonShortestEncoding, at: 0)
        assertRefused("1a0000ffff", .nonShortestEncoding, at: 0)
        assertRefused("1b00000000ffffffff", .nonShortestEncoding, at: 0)
        assertRefused("5800", .nonShortestEncoding, at: 0)
        assertRefused("8201980100", .nonShortestEncoding, at: 2)
    }

    func testReservedAndMisplacedAdditionalInformationIsRefused() {
        for head in ["1c", "1d", "1e", "3c", "5d", "7e", "9c", "bd", "de", "fc", "fd", "fe"] {
            assertRefused(head, .reservedAdditionalInformation, at: 0)
        }
        assertRefused("1f", .indefiniteLengthNotAllowed, at: 0)
        assertRefused("3f", .indefiniteLengthNotAllowed, at: 0)
        assertRefused("df", .indefiniteLengthNotAllowed, at: 0)
    }

    func testBreaksAndChunksMustBeWhereTheyBelong() {
        assertRefused("ff", .unexpectedBreak, at: 0)
        assertRefused("82ff01", .unexpectedBreak, at: 1)
        assertRefused("bf6161ff", .unexpectedBreak, at: 3)
        assertRefused("5f6161ff", .invalidChunk, at: 1)
        assertRefused("7f4161ff", .invalidChunk, at: 1)
        assertRefused("5f5fffff", .invalidChunk, at: 1)
        assertRefused("5f01ff", .invalidChunk, at: 1)
    }

    func testTextMustBeUTF8EvenChunkByChunk() {
        assertRefused("62c328", .invalidUTF8, at: 0)
        assertRefused("61ff", .invalidUTF8, at: 0)
        assertRefused("6dedb080", .truncated, at: 0)
        assertRefused("63edb080", .invalidUTF8, at: 0)
        // "ü" split between two chunks: each chunk must be UTF-8 by itself.
        assertRefused("7f61c361bcff", .invalidUTF8, at: 1)
    }

    func testNestingIsBounded() throws {
        let sixteen = String(repeating: "81", count: 16) + "00"
        XCTAssertNoThrow(try CBORDecoder.decode(hex(sixteen)))
        assertRefused(String(repeating: "81", count: 17) + "00", .tooDeep, at: 16)
        assertRefused(String(repeating: "9f", count: 17) + "00", .tooDeep, at: 16)
        assertRefused("a1" + String(repeating: "81", count: 3) + "0000", .tooDeep, at: 3, maximumDepth: 3)
        // Far deeper than the stack would take, still a clean refusal.
        assertRefused(String(repeating: "81", count: 100_000), .tooDeep, at: 16)
    }

    func testOtherRefusals() {
        assertRefused("a2616101616102", .duplicateKey, at: 4)
        assertRefused("c11a514b67b0", .unsupportedItem, at: 0)
        assertRefused("f93c00", .unsupportedItem, at: 0)
        assertRefused("fb3ff199999999999a", .unsupportedItem, at: 0)
        assertRefused("f7", .unsupportedItem, at: 0)
        assertRefused("f0", .unsupportedItem, at: 0)
        assertRefused("f818", .unsupportedItem, at: 0)
        assertRefused("0000", .trailingBytes, at: 1)
        XCTAssertEqual(
            CBORDecodingError(.duplicateKey, at: 4).description, "CBOR: a map names a key twice at byte 4")
    }

    func testValuesSurviveEncodingAndDecoding() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let value = randomValue(depth: 0, using: &generator)
            XCTAssertEqual(try CBORDecoder.decode(value.encoded), value)
        }
    }

    private func randomValue(depth: Int, using generator: inout SystemRandomNumberGenerator) -> CBORValue {
        let widths: [UInt64] = [23, 0xFF, 0xFFFF, 0xFFFF_FFFF, .max]
        switch Int.random(in: 0..<(depth < 4 ? 8 : 6), using: &generator) {
        case 0: return .unsigned(.random(in: 0...widths.randomElement(using: &generator)!, using: &generator))
        case 1: return .negative(.random(in: 0...widths.randomElement(using: &generator)!, using: &generator))
        case 2:
            return .bytes((0..<Int.random(in: 0..<300, using: &generator)).map { _ in .random(in: 0...255) })
        case 3: return .text(String(repeating: "é✓a", count: Int.random(in: 0..<40, using: &generator)))
        case 4: return .bool(.random(using: &generator))
        case 5: return .null
        case 6:
            return .array(
                (0..<Int.random(in: 0..<30, using: &generator)).map { _ in
                    randomValue(depth: depth + 1, using: &generator)
                })
        default:
            var map: [CBORValue: CBORValue] = [:]
            for _ in 0..<Int.random(in: 0..<10, using: &generator) {
                map[randomValue(depth: 4, using: &generator)] = randomValue(
                    depth: depth + 1, using: &generator)
            }
            return .map(map)
        }
    }
}
