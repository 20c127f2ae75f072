import Crypto
import Foundation

/// A public key an MCUboot image can be signed for: ECDSA P-256 or Ed25519.
///
/// Reads the PEM files imgtool writes and takes (`imgtool keygen`, `imgtool getpub --encoding
/// pem`): a public key (SubjectPublicKeyInfo) or a private key (PKCS#8, or SEC1 for P-256), of
/// which the public half is used.
public enum MCUbootPublicKey: Sendable {
    case p256(P256.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PublicKey)

    /// Why a key cannot be read.
    public struct Invalid: Error, Hashable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// DER prefixes of Ed25519 keys (RFC 8410): SubjectPublicKeyInfo and PKCS#8 private key, each
    /// followed by the 32 key bytes.
    private static let ed25519PublicPrefix: [UInt8] = [
        0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00,
    ]
    private static let ed25519PrivatePrefix: [UInt8] = [
        0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
    ]

    /// Parses a PEM key file's text.
    public init(pem: String) throws(Invalid) {
        if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            self = .p256(key)
        } else if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            self = .p256(key.publicKey)
        } else {
            let body = pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
            guard pem.contains("-----BEGIN"), let der = Data(base64Encoded: body).map(Array.init) else {
                throw Invalid(description: "not a PEM key")
            }
            if der.count == 44, der.starts(with: Self.ed25519PublicPrefix),
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: der[12...])
            {
                self = .ed25519(key)
            } else if der.count == 48, der.starts(with: Self.ed25519PrivatePrefix),
                let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: der[16...])
            {
                self = .ed25519(key.publicKey)
            } else {
                throw Invalid(description: "the PEM block is neither an ECDSA P-256 nor an Ed25519 key")
            }
        }
    }

    /// The key's SubjectPublicKeyInfo DER, as imgtool embeds it (`--public-key-format full`).
    public var subjectPublicKeyInfo: [UInt8] {
        switch self {
        case .p256(let key): Array(key.derRepresentation)
        case .ed25519(let key): Self.ed25519PublicPrefix + key.rawRepresentation
        }
    }

    /// The SHA-256 of ``subjectPublicKeyInfo``: what imgtool writes in the key hash TLV (0x01) of
    /// an image hashed with SHA-256, and MCUboot compares with the keys it was built with.
    public var keyHash: [UInt8] { keyHash(.sha256) }

    /// ``subjectPublicKeyInfo`` hashed with the image's hash algorithm: imgtool and MCUboot hash
    /// the key as they hash the image (a SHA-512 image names its key by a 64-byte hash).
    public func keyHash(_ algorithm: MCUbootHashAlgorithm) -> [UInt8] {
        algorithm.hash(subjectPublicKeyInfo[...])
    }
}
