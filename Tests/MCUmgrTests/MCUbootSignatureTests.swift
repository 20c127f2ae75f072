import Crypto
import Foundation
import MCUmgr
import TestSupport
import XCTest

/// Signatures over images built in the test with swift-crypto keys, checked as MCUboot checks
/// them: ECDSA P-256 of the image hash, Ed25519 of the 32 hash bytes.
final class MCUbootSignatureTests: XCTestCase {
    private let p256 = P256.Signing.PrivateKey()
    private let ed25519 = Curve25519.Signing.PrivateKey()

    private func image(_ configure: (inout TestImage) -> Void) throws -> MCUbootImage {
        var built = TestImage()
        configure(&built)
        return try MCUbootImage(bytes: built.bytes, name: "signed.bin")
    }

    func testECDSAP256() throws {
        let signed = try image { $0.signer = .p256(p256) }
        XCTAssertEqual(signed.signature?.kind, .ecdsaSignature)
        XCTAssertEqual(signed.signature?.keyHash, Array(SHA256.hash(data: p256.publicKey.derRepresentation)))
        XCTAssertEqual(signed.verifySignature(with: .p256(p256.publicKey)), .valid)
        XCTAssertEqual(signed.verifySignature(with: .p256(P256.Signing.PrivateKey().publicKey)), .otherKey)
        XCTAssertEqual(signed.verifySignature(with: .ed25519(ed25519.publicKey)), .otherKey)
        let padded = try image {
            $0.signer = .p256(p256)
            $0.padSignature = true
        }
        XCTAssertEqual(padded.signature?.bytes.count, 72)
        XCTAssertEqual(padded.verifySignature(with: .p256(p256.publicKey)), .valid)
    }

    func testEd25519SignsTheHashBytes() throws {
        let signed = try image { $0.signer = .ed25519(ed25519) }
        XCTAssertEqual(signed.signature?.kind, .ed25519)
        XCTAssertEqual(signed.verifySignature(with: .ed25519(ed25519.publicKey)), .valid)
        XCTAssertTrue(ed25519.publicKey.isValidSignature(signed.signature!.bytes, for: signed.hash))
        XCTAssertFalse(
            ed25519.publicKey.isValidSignature(signed.signature!.bytes, for: signed.bytes[..<1032]))
    }

    func testKeyTLVsAndAlgorithms() throws {
        let full = try image {
            $0.signer = .ed25519(ed25519)
            $0.keyTLV = .full
        }
        XCTAssertEqual(full.signature?.publicKey?.count, 44)
        XCTAssertEqual(full.verifySignature(with: .ed25519(ed25519.publicKey)), .valid)
        XCTAssertEqual(
            full.verifySignature(with: .ed25519(Curve25519.Signing.PrivateKey().publicKey)), .otherKey)
        let anonymous = try image {
            $0.signer = .p256(p256)
            $0.keyTLV = .none
        }
        XCTAssertEqual(
            anonymous.verifySignature(with: .ed25519(ed25519.publicKey)), .otherAlgorithm(.ecdsaSignature))
        XCTAssertEqual(anonymous.verifySignature(with: .p256(P256.Signing.PrivateKey().publicKey)), .invalid)
    }

    func testAlteredSignaturesAndHashesAreInvalid() throws {
        for signer: TestImage.Signer in [.p256(p256), .ed25519(ed25519)] {
            var built = TestImage()
            built.signer = signer
            built.keyTLV = .none
            var bytes = built.bytes
            bytes[bytes.count - 10] ^= 0x01  // inside the signature
            let image = try MCUbootImage(bytes: bytes, name: "a.bin")
            XCTAssertEqual(image.verifySignature(with: signer.publicKey), .invalid)
        }
        // An encrypted body: the hash cannot be recomputed, the signature of the TLV hash is
        // still checked.
        var encrypted = TestImage()
        encrypted.flags = 0x08
        encrypted.signer = .p256(p256)
        let image = try MCUbootImage(bytes: encrypted.bytes, name: "a.bin")
        XCTAssertFalse(image.isHashVerified)
        XCTAssertEqual(image.verifySignature(with: .p256(p256.publicKey)), .valid)
    }

    func testPEMKeys() throws {
        guard case .p256(let fromPrivate) = try MCUbootPublicKey(pem: p256.pemRepresentation) else {
            return XCTFail("not P-256")
        }
        XCTAssertEqual(fromPrivate.rawRepresentation, p256.publicKey.rawRepresentation)
        guard case .p256(let fromPublic) = try MCUbootPublicKey(pem: p256.publicKey.pemRepresentation) else {
            return XCTFail("not P-256")
        }
        XCTAssertEqual(fromPublic.rawRepresentation, p256.publicKey.rawRepresentation)
        let spki = Data(MCUbootPublicKey.ed25519(ed25519.publicKey).subjectPublicKeyInfo)
        let pem = "-----BEGIN PUBLIC KEY-----\n\(spki.base64EncodedString())\n-----END PUBLIC KEY-----\n"
        guard case .ed25519(let edKey) = try MCUbootPublicKey(pem: pem) else { return XCTFail("not Ed25519") }
        XCTAssertEqual(edKey.rawRepresentation, ed25519.publicKey.rawRepresentation)
        XCTAssertThrowsError(try MCUbootPublicKey(pem: "no key here"))
        XCTAssertThrowsError(
            try MCUbootPublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"))
    }
}
