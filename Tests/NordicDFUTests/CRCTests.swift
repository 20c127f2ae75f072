import DFUSupport
import GATT
import XCTest

@testable import NordicDFU

/// Check values of protocol doc 0.2 / 0.3, and incremental use.
final class CRCTests: XCTestCase {
    private let check = Array("123456789".utf8)
    private let allBytes = (0...255).map { UInt8($0) }

    func testCRC32CheckValues() {
        XCTAssertEqual(CRC32.checksum(check), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
        XCTAssertEqual(CRC32.checksum([0]), 0xD202_EF8D)
        XCTAssertEqual(CRC32.checksum(allBytes), 0x2905_8C73)
    }

    func testCRC16CheckValues() {
        XCTAssertEqual(CRC16.checksum(check), 0x29B1)
        XCTAssertEqual(CRC16.checksum([UInt8]()), 0xFFFF)
        XCTAssertEqual(CRC16.checksum([0]), 0xE1F0)
        XCTAssertEqual(CRC16.checksum(allBytes), 0x3FBD)
    }

    func testIncrementalEqualsOneShot() {
        var generator = SplitMix64(seed: 7)
        // Long enough for the multi-lane path, with lengths that leave every kind of remainder.
        let data = generator.bytes(70_003)
        let whole32 = CRC32.checksum(data)
        let whole16 = CRC16.checksum(data)
        XCTAssertEqual(whole32, Self.bitwiseCRC32(data))
        for split in [0, 1, 15, 16, 17, 8191, 8192, 40_000, data.count] {
            var crc32 = CRC32()
            crc32.update(data[..<split])
            crc32.update(data[split...])
            XCTAssertEqual(crc32.value, whole32, "split at \(split)")
            var resumed = CRC32(resumingFrom: CRC32.checksum(data[..<split]))
            resumed.update(data[split...])
            XCTAssertEqual(resumed.value, whole32)
            var crc16 = CRC16()
            crc16.update(data[..<split])
            crc16.update(data[split...])
            XCTAssertEqual(crc16.value, whole16, "split at \(split)")
        }
        // Small pieces, as a DFU transfer feeds it, and through raw buffers and a lazy sequence.
        var pieces = CRC32()
        for start in stride(from: 0, to: data.count, by: 244) {
            data[start..<min(start + 244, data.count)].withUnsafeBytes { pieces.update($0) }
        }
        XCTAssertEqual(pieces.value, whole32)
        XCTAssertEqual(CRC32.checksum(data.lazy.map { $0 }), whole32)
        XCTAssertEqual(CRC16.checksum(data.lazy.map { $0 }), whole16)
    }

    func testEveryLengthMatchesTheBitwiseDefinition() {
        var generator = SplitMix64(seed: 9)
        let data = generator.bytes(300)
        for length in 0...data.count {
            XCTAssertEqual(
                CRC32.checksum(data[..<length]), Self.bitwiseCRC32(data[..<length]), "length \(length)")
        }
        let long = generator.bytes(64 * 1024 + 13)
        XCTAssertEqual(CRC32.checksum(long), Self.bitwiseCRC32(long))
    }

    /// The table path, which CPUs without carry-less multiplication take, on its own.
    func testTablePathMatchesTheBitwiseDefinition() {
        var generator = SplitMix64(seed: 11)
        let data = generator.bytes(20 * 1024 + 7)
        for length in Array(0...100) + [8191, 8192, 8199, 16_384, data.count] {
            var crc = CRC32()
            data[..<length].withUnsafeBytes { crc.updateWithTables($0) }
            XCTAssertEqual(crc.value, Self.bitwiseCRC32(data[..<length]), "length \(length)")
        }
    }

    /// The definition, one bit at a time.
    private static func bitwiseCRC32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
