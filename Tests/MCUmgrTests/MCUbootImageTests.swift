import Crypto
import MCUmgr
import TestSupport
import XCTest

/// Images built byte by byte in the test: what the reader recovers, and what it refuses.
final class MCUbootImageTests: XCTestCase {
    func testUnsignedImageFields() throws {
        var built = TestImage()
        built.loadAddress = 0x2000_0000
        built.flags = 0x20
        let image = try MCUbootImage(bytes: built.bytes, name: "app.bin")
        XCTAssertEqual(image.header.loadAddress, 0x2000_0000)
        XCTAssertEqual(image.header.flags, .ramLoad)
        XCTAssertEqual(image.header.headerSize, 32)
        XCTAssertEqual(image.header.imageSize, 1000)
        XCTAssertEqual(image.header.protectedTLVSize, 0)
        XCTAssertEqual(image.header.version, MCUbootVersion(major: 1, minor: 2, revision: 3, build: 4))
        XCTAssertEqual(image.hash, built.hash)
        XCTAssertEqual(image.hash, Array(SHA256.hash(data: built.bytes[..<1032])))
        XCTAssertTrue(image.isHashVerified)
        XCTAssertEqual(image.imageEnd, built.bytes.count)
        XCTAssertEqual(image.unprotectedTLVs.map(\.kind), [.sha256])
        XCTAssertEqual(image.fileSHA256, Array(SHA256.hash(data: built.bytes)))
        XCTAssertNil(image.trailer)
        XCTAssertNil(image.signature)
        XCTAssertNil(image.securityCounter)
        XCTAssertEqual(image.verifySignature(with: .p256(P256.Signing.PrivateKey().publicKey)), .unsigned)
    }

    func testProtectedTLVsAreHashedAndRead() throws {
        var built = TestImage()
        built.headerSize = 0x200
        built.protectedTLVs = [(0x50, [7, 0, 0, 0]), (0x40, [UInt8](repeating: 1, count: 12))]
        let image = try MCUbootImage(bytes: built.bytes, name: "app.bin")
        XCTAssertEqual(image.header.protectedTLVSize, 4 + 8 + 16)
        XCTAssertEqual(image.protectedTLVs.map(\.kind), [.securityCounter, .dependency])
        XCTAssertEqual(image.securityCounter, 7)
        XCTAssertEqual(image.hash, Array(SHA256.hash(data: built.bytes[..<(0x200 + 1000 + 28)])))
        var altered = built.bytes
        altered[0x200 + 1000 + 8] = 8  // the security counter
        XCTAssertThrowsError(try MCUbootImage(bytes: altered, name: "app.bin")) {
            XCTAssertEqual(($0 as? MCUbootImageError)?.kind, .hashMismatch)
        }
    }

    func testEncryptedBodyKeepsTheTLVHashUnchecked() throws {
        var built = TestImage()
        built.flags = 0x04
        built.hashOverride = [UInt8](repeating: 0x42, count: 32)
        let image = try MCUbootImage(bytes: built.bytes, name: "app.signed.encrypted.bin")
        XCTAssertTrue(image.header.isEncrypted)
        XCTAssertFalse(image.isHashVerified)
        XCTAssertEqual(image.hash, [UInt8](repeating: 0x42, count: 32))
    }

    func testPaddedImageTrailer() throws {
        var built = TestImage()
        built.padTo = 0x1000
        let unconfirmed = try XCTUnwrap(MCUbootImage(bytes: built.bytes, name: "a.bin").trailer)
        XCTAssertEqual(unconfirmed.maxAlign, 8)
        XCTAssertFalse(unconfirmed.imageOK)
        built.confirm = true
        let image = try MCUbootImage(bytes: built.bytes, name: "a.bin", slotSize: 0x1000)
        XCTAssertEqual(image.trailer?.imageOK, true)
        XCTAssertEqual(image.bytes.count, 0x1000)
        XCTAssertLessThan(image.imageEnd, 0x1000)
    }

    private func assertRefused(
        _ bytes: [UInt8], _ kind: MCUbootImageError.Kind, reason: String? = nil, slotSize: Int? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(
            try MCUbootImage(bytes: bytes, name: "fw/app.bin", slotSize: slotSize), file: file, line: line
        ) {
            guard let error = $0 as? MCUbootImageError else {
                return XCTFail("\($0)", file: file, line: line)
            }
            XCTAssertEqual(error.kind, kind, error.description, file: file, line: line)
            XCTAssertEqual(error.file, "fw/app.bin", file: file, line: line)
            XCTAssertTrue(error.description.contains("fw/app.bin"), file: file, line: line)
            if let reason { XCTAssertEqual(error.reason, reason, file: file, line: line) }
        }
    }

    func testRefusals() {
        let good = TestImage().bytes
        assertRefused(
            Array(good[..<31]), .truncated, reason: "31 bytes, shorter than the 32-byte MCUboot header")
        assertRefused(Array(good[..<500]), .truncated)
        var magic = good
        magic[0] = 0x00
        assertRefused(
            magic, .badMagic,
            reason: "magic 0x96f3b800, not MCUboot's 0x96f3b83d (not a signed MCUboot image)")
        magic[0] = 0x3C
        assertRefused(magic, .badMagic, reason: "magic 0x96f3b83c is MCUboot's obsolete version 1 layout")
        var headerSize = good
        headerSize[8] = 16
        assertRefused(headerSize, .invalidHeader)
        var noTLVs = good
        noTLVs[1032] = 0x00
        assertRefused(
            noTLVs, .tlvAreaInvalid, reason: "TLV area at offset 1032: info magic 0x6900, not 0x6907")
        assertRefused(Array(good[..<1034]), .tlvAreaInvalid)
        assertRefused(Array(good.dropLast()), .tlvAreaInvalid)
        var crossing = good
        crossing[1032 + 6] = 33  // the SHA-256 entry's length, one past the area
        assertRefused(crossing, .tlvAreaInvalid)
        var shortArea = good
        shortArea[1032 + 2] = 3
        assertRefused(shortArea, .tlvAreaInvalid)
        var protected = TestImage()
        protected.protectedTLVs = [(0x50, [1, 0, 0, 0])]
        var wrongSize = protected.bytes
        wrongSize[10] = 16
        assertRefused(wrongSize, .tlvAreaInvalid)
        var noHash = good
        noHash[1032 + 4] = 0x11  // SHA-384 type, 32 bytes: no SHA-256 TLV left
        assertRefused(noHash, .hashMissing)
        var body = good
        body[100] ^= 1
        assertRefused(body, .hashMismatch)
        assertRefused(
            good, .tooLargeForSlot, reason: "\(good.count) bytes, more than the 1024-byte slot",
            slotSize: 1024)
        XCTAssertNoThrow(try MCUbootImage(bytes: good, name: "a", slotSize: good.count))
    }

    func testTwoHashesAreRefused() throws {
        let built = TestImage()
        let image = built.bytes
        // Append a second SHA-256 TLV inside the area.
        var tlvs = Array(image[1032...])
        tlvs += [0x10, 0x00, 0x20, 0x00] + built.hash
        tlvs[2] = UInt8(tlvs.count)
        assertRefused(Array(image[..<1032]) + tlvs, .hashMissing)
    }

    func testVersionText() {
        XCTAssertEqual(MCUbootVersion("1.2.3+4"), MCUbootVersion(major: 1, minor: 2, revision: 3, build: 4))
        XCTAssertEqual(MCUbootVersion("1.2.3.4"), MCUbootVersion(major: 1, minor: 2, revision: 3, build: 4))
        XCTAssertEqual(MCUbootVersion("2"), MCUbootVersion(major: 2, minor: 0, revision: 0))
        XCTAssertEqual(MCUbootVersion("0.0.0+0")?.description, "0.0.0+0")
        for bad in ["", "1.2.3.4+5", "256.0.0", "1.2.65536", "1..2", "a.b", "1.2.3+", "-1", "<???>"] {
            XCTAssertNil(MCUbootVersion(bad), bad)
        }
        XCTAssertEqual(MCUbootVersion(major: 1, minor: 2, revision: 3).imageListDescription, "1.2.3")
        XCTAssertEqual(
            MCUbootVersion(major: 1, minor: 2, revision: 3, build: 9).imageListDescription, "1.2.3.9")
        XCTAssertLessThan(MCUbootVersion("1.2.3+9")!, MCUbootVersion("1.3.0")!)
        XCTAssertLessThan(MCUbootVersion("1.2.3+1")!, MCUbootVersion("1.2.3+2")!)
    }
}
