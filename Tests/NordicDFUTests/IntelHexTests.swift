import Foundation
import TestSupport
import XCTest

@testable import NordicDFU

/// Intel HEX to binary, and bare firmware packages.
final class IntelHexTests: XCTestCase {
    private func record(_ type: UInt8, _ address: UInt16, _ data: [UInt8]) -> String {
        IntelHexText.record(type, address, data)
    }

    private func linear(_ upper: UInt16) -> String { record(4, 0, [UInt8(upper >> 8), UInt8(upper & 0xFF)]) }
    private let end = ":00000001FF"

    private func image(_ lines: [String]) throws -> [UInt8] {
        try IntelHex.image(
            from: Array(lines.joined(separator: "\r\n").utf8), maximumSize: DFUPackage.maximumEntrySize)
    }

    func testExtendedLinearAddressGapsAndPadding() throws {
        let lines = [
            linear(0x0002), record(0, 0x6000, [1, 2, 3, 4]), record(0, 0x6008, [5]),
            record(5, 0, [0, 0x02, 0x60, 0x01]), end,
        ]
        // 0x26000..0x26009, the gap 0x26004..0x26007 filled, then padded to 12 bytes.
        XCTAssertEqual(try image(lines), [1, 2, 3, 4, 0xFF, 0xFF, 0xFF, 0xFF, 5, 0xFF, 0xFF, 0xFF])
    }

    func testRecordsAcrossA64KiBBoundary() throws {
        let lines = [
            linear(0x0001), record(0, 0xFFFC, [1, 2, 3, 4]), linear(0x0002), record(0, 0x0000, [5, 6, 7, 8]),
            end,
        ]
        XCTAssertEqual(try image(lines), [1, 2, 3, 4, 5, 6, 7, 8])
    }

    func testExtendedSegmentAddress() throws {
        // Segment 0x2000 → base 0x20000.
        let lines = [
            record(2, 0, [0x20, 0x00]), record(0, 0x0010, [0xAA, 0xBB, 0xCC, 0xDD]),
            record(3, 0, [0, 0, 0, 0]), end,
        ]
        XCTAssertEqual(try image(lines), [0xAA, 0xBB, 0xCC, 0xDD])
    }

    func testMBRAndUICRAreDropped() throws {
        let lines = [
            record(0, 0x0000, [9, 9, 9, 9]),  // MBR
            record(0, 0x0FFE, [8, 8, 1, 2]),  // straddles 0x1000: only 1, 2 are kept
            record(0, 0x1002, [3, 4]),
            linear(0x1000), record(0, 0x1014, [0x00, 0x80, 0x07, 0x00]),  // UICR
            end,
        ]
        XCTAssertEqual(try image(lines), [1, 2, 3, 4])
    }

    func testOddLengthsArePadded() throws {
        XCTAssertEqual(try image([record(0, 0x2000, [7]), end]), [7, 0xFF, 0xFF, 0xFF])
        XCTAssertEqual(try image([record(0, 0x2000, [1, 2, 3, 4, 5]), end]).count, 8)
    }

    func testBadInputIsRefused() {
        var bad = record(0, 0x2000, [1, 2, 3, 4])
        bad.removeLast()
        bad += "0"  // wrong checksum digit
        for lines in [
            [bad, end],
            [record(0, 0x2000, [1, 2, 3, 4])],  // no end record
            ["garbage", end],
            [":0400000001020304", end],  // too short for its length byte
            [record(6, 0, [1]), end],  // unknown type
            [record(4, 0, [1]), end],  // address record of 1 byte
            [record(0, 0x2000, [1, 2, 3, 4]), record(0, 0x2002, [9]), end],  // overlap
            [":0400000G01020304E2", end],  // not hex
        ] {
            XCTAssertThrowsError(try image(lines), "\(lines)")
        }
    }

    func testBareHexPackage() throws {
        let text = Array(
            [linear(0x0002), record(0, 0x6000, [1, 2, 3, 4, 5]), end].joined(separator: "\n").utf8)
        let package = try DFUPackage(intelHex: text, name: "app.hex")
        XCTAssertEqual(package.images.map(\.kind), [.application])
        XCTAssertEqual(package.images[0].firmware, [1, 2, 3, 4, 5, 0xFF, 0xFF, 0xFF])
        XCTAssertEqual(package.format, .legacy)
        XCTAssertNil(package.images[0].initPacket)

        XCTAssertThrowsError(try DFUPackage(intelHex: Array(":00000001FE\n".utf8), name: "bad.hex")) {
            error in
            XCTAssertEqual((error as! DFUPackageError).kind, .invalidHex)
            XCTAssertTrue((error as! DFUPackageError).message.hasPrefix("bad.hex"))
        }
        // Only MBR data: nothing left.
        XCTAssertThrowsError(
            try DFUPackage(intelHex: Array([record(0, 0, [1, 2]), end].joined(separator: "\n").utf8))
        ) {
            XCTAssertEqual(($0 as! DFUPackageError).kind, .imageEmpty)
        }
    }

    func testBareFirmwareWithInitPackets() throws {
        let firmware = TestPackages.firmware
        let secure = try DFUPackage(firmware: firmware, initPacket: TestPackages.secureDat(for: firmware))
        XCTAssertEqual(secure.format, .secure)
        XCTAssertEqual(secure.applicationVersion, 7)
        for version in LegacyInitPacket.Version.allCases {
            let legacy = try DFUPackage(
                firmware: firmware, initPacket: TestPackages.legacyDat(for: firmware, version: version))
            XCTAssertEqual(legacy.format, .legacy)
            XCTAssertEqual(legacy.dfuVersion, version.dfuVersion)
        }
        XCTAssertThrowsError(try DFUPackage(firmware: firmware, initPacket: [1, 2, 3])) {
            XCTAssertEqual(($0 as! DFUPackageError).kind, .initPacketInvalid)
        }
        XCTAssertThrowsError(
            try DFUPackage(firmware: firmware, initPacket: TestPackages.secureDat(for: [1, 2, 3, 4]))
        ) {
            XCTAssertEqual(($0 as! DFUPackageError).kind, .initPacketMismatch)
        }
        XCTAssertThrowsError(try DFUPackage(firmware: [])) {
            XCTAssertEqual(($0 as! DFUPackageError).kind, .imageEmpty)
        }
    }

    func testBareFilesFromDiskPickUpTheirDat() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-hex-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let firmware = TestPackages.firmware
        try Data(firmware).write(to: directory.appendingPathComponent("app.bin"))
        try Data(TestPackages.secureDat(for: firmware)).write(to: directory.appendingPathComponent("app.dat"))
        let package = try DFUPackage(contentsOf: directory.appendingPathComponent("app.bin"))
        XCTAssertEqual(package.format, .secure)
        XCTAssertEqual(package.images[0].datName, "app.dat")
        XCTAssertEqual(package.images[0].firmware, firmware)

        let hex = [linear(0x0002), record(0, 0x6000, [1, 2, 3, 4]), end].joined(separator: "\n")
        try Data(hex.utf8).write(to: directory.appendingPathComponent("other.hex"))
        let fromHex = try DFUPackage(contentsOf: directory.appendingPathComponent("other.hex"))
        XCTAssertEqual(fromHex.images[0].firmware, [1, 2, 3, 4])
        XCTAssertNil(fromHex.images[0].initPacket)
    }
}
