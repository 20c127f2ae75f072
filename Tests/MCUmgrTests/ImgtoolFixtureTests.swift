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
}
