import DFUSupport
import XCTest

final class HexStringTests: XCTestCase {
    func testEveryByteIsTwoLowerCaseDigits() {
        let all = (0...255).map(UInt8.init)
        let hex = all.hexString()
        XCTAssertEqual(hex.count, 512)
        for byte in all {
            let start = hex.index(hex.startIndex, offsetBy: Int(byte) * 2)
            let digits = String(hex[start..<hex.index(start, offsetBy: 2)])
            XCTAssertEqual(UInt8(digits, radix: 16), byte)
            XCTAssertEqual(digits, digits.lowercased())
        }
    }

    func testTheSeparatorGoesBetweenBytesOnly() {
        XCTAssertEqual([0x01, 0xAB, 0xFF].hexString(separator: " "), "01 ab ff")
        XCTAssertEqual([0x0F].hexString(separator: ":"), "0f")
        XCTAssertEqual([UInt8]().hexString(separator: " "), "")
    }
}
