import MCUmgr
import XCTest

/// RFC 8949 Appendix A, the examples within the subset: each decodes to its value and (when
/// definite) encodes back to the same bytes.
final class CBORVectorTests: XCTestCase {
    private let definite: [(String, CBORValue)] = [
        ("00", 0), ("01", 1), ("0a", 10), ("17", 23), ("1818", 24), ("1819", 25), ("1864", 100),
        ("1903e8", 1000), ("1a000f4240", 1_000_000), ("1b000000e8d4a51000", 1_000_000_000_000),
        ("1bffffffffffffffff", .unsigned(UInt64.max)), ("3bffffffffffffffff", .negative(UInt64.max)),
        ("20", -1), ("29", -10), ("3863", -100), ("3903e7", -1000),
        ("f4", false), ("f5", true), ("f6", .null),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
        ("60", ""), ("6161", "a"), ("6449455446", "IETF"), ("62225c", "\"\\"), ("62c3bc", "\u{00fc}"),
        ("63e6b0b4", "\u{6c34}"), ("64f0908591", "\u{10151}"),
        ("80", []), ("83010203", [1, 2, 3]), ("8301820203820405", [1, [2, 3], [4, 5]]),
        (
            "98190102030405060708090a0b0c0d0e0f101112131415161718181819",
            .array((1...25).map { CBORValue($0) })
        ),
        ("a0", [:]), ("a201020304", [1: 2, 3: 4]), ("a26161016162820203", ["a": 1, "b": [2, 3]]),
        ("826161a161626163", ["a", ["b": "c"]]),
        ("a56161614161626142616361436164614461656145", ["a": "A", "b": "B", "c": "C", "d": "D", "e": "E"]),
    ]

    private let indefinite: [(String, CBORValue)] = [
        ("5f42010243030405ff", .bytes([1, 2, 3, 4, 5])),
        ("7f657374726561646d696e67ff", "streaming"),
        ("9fff", []),
        ("9f018202039f0405ffff", [1, [2, 3], [4, 5]]),
        ("9f01820203820405ff", [1, [2, 3], [4, 5]]),
        ("83018202039f0405ff", [1, [2, 3], [4, 5]]),
        ("83019f0203ff820405", [1, [2, 3], [4, 5]]),
        (
            "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff",
            .array((1...25).map { CBORValue($0) })
        ),
        ("bf61610161629f0203ffff", ["a": 1, "b": [2, 3]]),
        ("826161bf61626163ff", ["a", ["b": "c"]]),
        ("bf6346756ef563416d7421ff", ["Fun": true, "Amt": -2]),
    ]

    func testDefiniteVectorsDecodeAndEncodeToTheSameBytes() throws {
        for (text, value) in definite {
            XCTAssertEqual(try CBORDecoder.decode(hex(text)), value, text)
            XCTAssertEqual(value.encoded, hex(text), text)
        }
    }

    func testIndefiniteVectorsDecodeAndEncodeDefinitely() throws {
        for (text, value) in indefinite {
            let decoded = try CBORDecoder.decode(hex(text))
            XCTAssertEqual(decoded, value, text)
            XCTAssertEqual(try CBORDecoder.decode(decoded.encoded), value, text)
            XCTAssertNotEqual(decoded.encoded[0] & 0x1F, 31, "re-encoded with definite length: \(text)")
        }
    }

    func testIntegerAccessorsKeepTheWholeRangeAndRefuseWhatDoesNotFit() {
        XCTAssertEqual(CBORValue(Int64.min).encoded, hex("3b7fffffffffffffff"))
        XCTAssertEqual(CBORValue(Int64.min).integer(as: Int64.self), Int64.min)
        XCTAssertEqual(CBORValue(-1).integer(as: Int8.self), -1)
        XCTAssertNil(CBORValue(-1).integer(as: UInt32.self))
        XCTAssertNil(CBORValue(300).integer(as: UInt8.self))
        XCTAssertNil(CBORValue.negative(UInt64.max).integer(as: Int64.self))
        XCTAssertNil(CBORValue.text("1").integer(as: Int.self))
        XCTAssertEqual(CBORValue(UInt32.max).integer(as: UInt32.self), UInt32.max)
    }

    func testMapKeysAreWrittenInDeterministicOrder() {
        // Bytewise order of the encoded keys: shorter texts first, then by content; integers
        // (major type 0) before texts (major type 3).
        let map: CBORValue = ["off": 1, "data": .bytes([]), "len": 2, 7: true]
        XCTAssertEqual(map.encoded, hex("a4 07 f5 636c656e 02 636f6666 01 6464617461 40"))
    }
}
