import Crypto
import Foundation
import TestSupport
import XCTest

@testable import NordicDFU

/// Signature checks: Secure (r‖s little-endian over the InitCommand) and Legacy 0.8 (r‖s
/// big-endian over the preceding bytes); tampering and wrong keys are caught.
final class SignatureTests: XCTestCase {
    private let firmware = TestPackages.firmware

    func testSecureSignatureVerifiesAndTamperingIsCaught() throws {
        let key = P256.Signing.PrivateKey()
        let publicKey = DFUPublicKey(key.publicKey)
        let dat = TestPackages.secureDat(for: firmware, signedBy: key)
        let package = try readPackage(TestPackages.app(dat: dat))
        XCTAssertTrue(package.images[0].isSigned)
        XCTAssertEqual(package.verifySignatures(with: publicKey), [true])
        XCTAssertEqual(
            package.verifySignatures(with: DFUPublicKey(P256.Signing.PrivateKey().publicKey)), [false])

        guard case .secure(let packet) = package.images[0].decodedInitPacket else {
            return XCTFail("not secure")
        }
        let signature = try XCTUnwrap(packet.signature)
        var tampered = dat
        tampered[signature.offset + 5] ^= 0x01
        XCTAssertEqual(
            try readPackage(TestPackages.app(dat: tampered)).verifySignatures(with: publicKey), [false])
        // A changed signed byte that leaves the package valid: hw_version 52 → 53.
        var edited = dat
        let hwVersion = try XCTUnwrap(
            (packet.initCommandRange).first { edited[$0] == 0x10 && edited[$0 + 1] == 52 })
        edited[hwVersion + 1] = 53
        XCTAssertEqual(
            try readPackage(TestPackages.app(dat: edited)).verifySignatures(with: publicKey), [false])
    }

    func testMadeSecureApplicationIsSignedAsNrfutilSignsOrNotAtAll() throws {
        let key = P256.Signing.PrivateKey()
        let signed = try DFUPackage.secureApplication(firmware: firmware, version: 2, signedBy: key)
        XCTAssertTrue(signed.images[0].isSigned)
        XCTAssertEqual(signed.verifySignatures(with: DFUPublicKey(key.publicKey)), [true])
        XCTAssertEqual(
            signed.verifySignatures(with: DFUPublicKey(P256.Signing.PrivateKey().publicKey)), [false])
        let unsigned = try DFUPackage.unsignedSecureApplication(firmware: firmware, version: 2)
        XCTAssertFalse(unsigned.images[0].isSigned)
        XCTAssertEqual(unsigned.images[0].firmware, signed.images[0].firmware)
    }

    func testUnsignedHasNoVerdict() throws {
        let package = try readPackage(TestPackages.app())
        XCTAssertFalse(package.images[0].isSigned)
        XCTAssertEqual(
            package.verifySignatures(with: DFUPublicKey(P256.Signing.PrivateKey().publicKey)), [nil])
    }

    func testFixtureSignatureTamperedOrOtherKey() throws {
        let original = try DFUPackage(contentsOf: Fixtures.url("secure/secure_app_20_hex_signed.zip"))
        let image = original.images[0]
        let key = try Fixtures.publicKeyPEM()
        XCTAssertEqual(image.verifySignature(with: key), true)
        XCTAssertEqual(image.verifySignature(with: DFUPublicKey(P256.Signing.PrivateKey().publicKey)), false)
        var dat = try XCTUnwrap(image.initPacket)
        dat[dat.count - 1] ^= 0x80
        let manifest = TestPackages.manifest([
            "application": ["bin_file": image.binName, "dat_file": image.datName!]
        ])
        let rebuilt = TestZip(files: [
            ("manifest.json", manifest), (image.binName, image.firmware), (image.datName!, dat),
        ])
        XCTAssertEqual(try readPackage(rebuilt.bytes).verifySignatures(with: key), [false])
    }

    func testLegacy08Signature() throws {
        let key = P256.Signing.PrivateKey()
        let dat = TestPackages.legacyDat(for: firmware, version: .v0_8, signedBy: key)
        let package = try readPackage(TestPackages.app(dat: dat, dfuVersion: 0.8))
        XCTAssertEqual(package.verifySignatures(with: DFUPublicKey(key.publicKey)), [true])
        XCTAssertEqual(
            package.verifySignatures(with: DFUPublicKey(P256.Signing.PrivateKey().publicKey)), [false])
        var tampered = dat
        tampered[tampered.count - 40] ^= 1
        let bad = try readPackage(TestPackages.app(dat: tampered, dfuVersion: 0.8))
        XCTAssertEqual(bad.verifySignatures(with: DFUPublicKey(key.publicKey)), [false])
    }

    func testPublicKeyForms() throws {
        let key = P256.Signing.PrivateKey()
        let raw = Array(key.publicKey.rawRepresentation)
        let nrfutilHex = (raw[0..<32].reversed() + raw[32..<64].reversed()).hex
        let fromHex = try DFUPublicKey(text: "Public (verification) key pk:\n\(nrfutilHex)\n")
        XCTAssertEqual(fromHex.key.rawRepresentation, key.publicKey.rawRepresentation)
        let fromPEM = try DFUPublicKey(text: key.publicKey.pemRepresentation)
        XCTAssertEqual(fromPEM.key.rawRepresentation, key.publicKey.rawRepresentation)
        let fromPrivate = try DFUPublicKey(text: key.pemRepresentation)
        XCTAssertEqual(fromPrivate.key.rawRepresentation, key.publicKey.rawRepresentation)
        // PEM and hex forms of the fixture key are the same key.
        XCTAssertEqual(
            try Fixtures.publicKeyPEM().key.rawRepresentation,
            try Fixtures.publicKeyHex().key.rawRepresentation)

        XCTAssertThrowsError(try DFUPublicKey(text: "no key here"))
        XCTAssertThrowsError(try DFUPublicKey(text: String(repeating: "ab", count: 63)))
        XCTAssertThrowsError(try DFUPublicKey(text: String(repeating: "0", count: 128)))  // not on the curve
        XCTAssertThrowsError(
            try DFUPublicKey(text: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"))
    }
}
