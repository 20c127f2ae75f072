import Foundation
import MCUmgr
import XCTest

/// Images signed by imgtool itself (Fixtures/README.md): the reader agrees with `imgtool verify`
/// on version and hash, and verifies the signatures with imgtool's keys.
final class ImgtoolFixtureTests: XCTestCase {
    private let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    private func image(_ name: String) throws -> MCUbootImage {
        let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
        return try MCUbootImage(bytes: Array(bytes), name: name, slotSize: 0x4000)
    }

    private func key(_ name: String) throws -> MCUbootPublicKey {
        try MCUbootPublicKey(pem: String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
    }

    /// Version and digest as `imgtool verify` printed them.
    private func imgtoolVerify(_ image: String) throws -> (version: String, digest: String) {
        let name = image.replacingOccurrences(of: ".bin", with: ".verify.txt")
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("Image was correctly validated"), name)
        func field(_ label: String) -> String {
            text.split(separator: "\n").first { $0.hasPrefix(label) }.map {
                String($0.dropFirst(label.count))
            } ?? ""
        }
        return (field("Image version: "), field("Image digest: "))
    }

    private func assertAgreesWithImgtool(_ name: String, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let image = try image(name)
        let expected = try imgtoolVerify(name)
        XCTAssertEqual(image.header.version.description, expected.version, name, file: file, line: line)
        XCTAssertEqual(image.hash, hex(expected.digest), name, file: file, line: line)
        XCTAssertTrue(image.isHashVerified, file: file, line: line)
        XCTAssertEqual(image.header.headerSize, 0x200, file: file, line: line)
        XCTAssertEqual(image.header.imageSize, 3000, file: file, line: line)
    }

    func testECDSAP256() throws {
        try assertAgreesWithImgtool("ecdsa-p256.signed.bin")
        let image = try image("ecdsa-p256.signed.bin")
        XCTAssertEqual(image.signature?.kind, .ecdsaSignature)
        XCTAssertEqual(image.unprotectedTLVs.map(\.kind), [.sha256, .keyHash, .ecdsaSignature])
        XCTAssertNil(image.trailer)
        XCTAssertEqual(image.verifySignature(with: try key("ecdsa-p256.pem")), .valid)
        XCTAssertEqual(image.verifySignature(with: try key("ecdsa-p256.pub.pem")), .valid)
        XCTAssertEqual(image.verifySignature(with: try key("ed25519.pem")), .otherKey)
    }

    func testEd25519WithASecurityCounter() throws {
        try assertAgreesWithImgtool("ed25519.signed.bin")
        let image = try image("ed25519.signed.bin")
        XCTAssertEqual(image.header.protectedTLVSize, 12)
        XCTAssertEqual(image.securityCounter, 7)
        XCTAssertEqual(image.signature?.kind, .ed25519)
        XCTAssertEqual(image.verifySignature(with: try key("ed25519.pub.pem")), .valid)
        XCTAssertEqual(image.verifySignature(with: try key("ed25519.pem")), .valid)
        XCTAssertEqual(image.verifySignature(with: try key("ecdsa-p256.pem")), .otherKey)
    }

    func testPaddedImages() throws {
        try assertAgreesWithImgtool("ecdsa-p256-confirmed.padded.bin")
        let confirmed = try image("ecdsa-p256-confirmed.padded.bin")
        XCTAssertEqual(confirmed.bytes.count, 0x4000)
        XCTAssertEqual(confirmed.trailer?.maxAlign, 8)
        XCTAssertEqual(confirmed.trailer?.imageOK, true)
        XCTAssertNotNil(confirmed.signature?.publicKey)
        XCTAssertEqual(confirmed.verifySignature(with: try key("ecdsa-p256.pub.pem")), .valid)

        try assertAgreesWithImgtool("ed25519-align16.padded.bin")
        let aligned = try image("ed25519-align16.padded.bin")
        XCTAssertEqual(aligned.trailer?.maxAlign, 16)
        XCTAssertEqual(aligned.trailer?.imageOK, false)
        XCTAssertEqual(aligned.verifySignature(with: try key("ed25519.pem")), .valid)
        XCTAssertThrowsError(try MCUbootImage(bytes: aligned.bytes, name: "a.bin", slotSize: 0x3FFF))
    }

    func testUnsigned() throws {
        try assertAgreesWithImgtool("unsigned.bin")
        let image = try image("unsigned.bin")
        XCTAssertNil(image.signature)
        XCTAssertEqual(image.verifySignature(with: try key("ed25519.pem")), .unsigned)
    }

    /// nRF54L's default (docs/mcumgr.md, "nRF54L images"): a SHA-512 hash TLV, which the device
    /// lists at its 64 bytes, and Ed25519 over it.
    func testSHA512Ed25519() throws {
        try assertAgreesWithImgtool("ed25519-sha512.signed.bin")
        let image = try image("ed25519-sha512.signed.bin")
        XCTAssertEqual(image.hashAlgorithm, .sha512)
        XCTAssertEqual(image.hash.count, 64)
        XCTAssertFalse(image.isPureSignature)
        XCTAssertEqual(image.verifySignature(with: try key("ed25519.pub.pem")), .valid)
        XCTAssertEqual(image.verifySignature(with: try key("ecdsa-p256.pem")), .otherKey)
    }

    /// A pure signature is over the image, not its hash; imgtool still writes the SHA-512 TLV.
    func testPureEd25519() throws {
        let image = try image("ed25519-pure.signed.bin")
        let printed = try String(
            contentsOf: directory.appendingPathComponent("ed25519-pure.signed.verify.txt"), encoding: .utf8)
        XCTAssertTrue(printed.contains("Image version: 3.1.1+0"))
        let signature = try XCTUnwrap(image.signature).bytes.map { String(format: "%02x", $0) }.joined()
        XCTAssertTrue(printed.contains("Image signature over image: \(signature)"))
        XCTAssertEqual(image.hashAlgorithm, .sha512)
        XCTAssertTrue(image.isHashVerified)
        XCTAssertTrue(image.isPureSignature)
        XCTAssertEqual(image.verifySignature(with: try key("ed25519.pub.pem")), .valid)

        // The same signature checked over the hash, as for a signature that is not pure, fails.
        var notPure = image.bytes
        notPure[try XCTUnwrap(pureMarkerValueOffset(in: image))] = 0
        let altered = try MCUbootImage(bytes: notPure, name: "not-pure.bin", slotSize: 0x4000)
        XCTAssertFalse(altered.isPureSignature)
        XCTAssertEqual(altered.verifySignature(with: try key("ed25519.pub.pem")), .invalid)
    }

    func testUnsignedSHA512() throws {
        try assertAgreesWithImgtool("unsigned-sha512.bin")
        XCTAssertEqual(try image("unsigned-sha512.bin").hashAlgorithm, .sha512)
    }

    /// A SHA-512 image whose body changed is refused by its hash, named as SHA-512.
    func testSHA512Mismatch() throws {
        var bytes = try image("ed25519-sha512.signed.bin").bytes
        bytes[0x200 + 10] ^= 0xFF
        XCTAssertThrowsError(try MCUbootImage(bytes: bytes, name: "bad.bin")) { error in
            let error = error as? MCUbootImageError
            XCTAssertEqual(error?.kind, .hashMismatch)
            XCTAssertTrue(error?.reason.hasPrefix("the SHA-512 of") == true, error?.reason ?? "")
        }
    }

    /// The offset of the SIG_PURE TLV's one-byte value in the file.
    private func pureMarkerValueOffset(in image: MCUbootImage) -> Int? {
        var position = image.hashedEnd + 4
        for tlv in image.unprotectedTLVs {
            if tlv.kind == .signaturePure { return position + 4 }
            position += 4 + tlv.value.count
        }
        return nil
    }
}
