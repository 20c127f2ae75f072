import Crypto
import DFUSupport

/// The signature an image carries, from its unprotected TLVs.
public struct MCUbootSignature: Hashable, Sendable {
    /// The signature TLV's type: ``MCUbootTLV/Kind/ecdsaSignature``, ``MCUbootTLV/Kind/ed25519``,
    /// ``MCUbootTLV/Kind/rsa2048PSS``, ``MCUbootTLV/Kind/rsa3072PSS`` or
    /// ``MCUbootTLV/Kind/ecdsaP224``.
    public var kind: MCUbootTLV.Kind
    /// The signature bytes: DER for ECDSA (imgtool `--pad-sig` pads it with zeros to 72 bytes),
    /// 64 bytes for Ed25519.
    public var bytes: [UInt8]
    /// The key hash TLV (the signing key's SubjectPublicKeyInfo hashed as the image is), when
    /// present.
    public var keyHash: [UInt8]?
    /// The public key TLV (the whole SubjectPublicKeyInfo), when present instead of a hash.
    public var publicKey: [UInt8]?
}

/// The outcome of checking an image's signature against a key.
public enum MCUbootSignatureCheck: Hashable, Sendable {
    /// The signature verifies with the key.
    case valid
    /// The signature is of the key's algorithm but does not verify: the image was altered, or
    /// signed with another key of that algorithm.
    case invalid
    /// The image names a different key (key hash or public key TLV).
    case otherKey
    /// The image is signed with another algorithm than the key's, or with one this reader cannot
    /// check (RSA, P-224; ECDSA P-256 over a hash other than SHA-256, named by its hash TLV).
    case otherAlgorithm(MCUbootTLV.Kind)
    /// The image carries no signature (only its hash).
    case unsigned
}

extension MCUbootImage {
    private static let signatureKinds: [MCUbootTLV.Kind] = [
        .ecdsaSignature, .ed25519, .rsa2048PSS, .rsa3072PSS, .ecdsaP224,
    ]

    /// The first signature TLV, with the key TLV that names its key; nil for an unsigned image.
    public var signature: MCUbootSignature? {
        guard let tlv = unprotectedTLVs.first(where: { Self.signatureKinds.contains($0.kind) }) else {
            return nil
        }
        return MCUbootSignature(
            kind: tlv.kind, bytes: tlv.value,
            keyHash: unprotectedTLVs.first { $0.kind == .keyHash }?.value,
            publicKey: unprotectedTLVs.first { $0.kind == .publicKey }?.value)
    }

    /// Whether the image carries a pure signature: a `SIG_PURE` TLV of `0x01` (imgtool `--pure`),
    /// which makes the Ed25519 signature one over the image rather than over its hash.
    public var isPureSignature: Bool {
        unprotectedTLVs.contains { $0.kind == .signaturePure && $0.value == [1] }
    }

    /// Checks the signature against `key` as MCUboot does (`image_validate.c`; imgtool signs
    /// the same way): ECDSA P-256 over the SHA-256 image hash (imgtool's only hash for a P-256
    /// key); Ed25519 over the image hash, whatever its length (imgtool `sign_digest`), or, when
    /// ``isPureSignature``, over the hashed bytes themselves.
    public func verifySignature(with key: MCUbootPublicKey) -> MCUbootSignatureCheck {
        guard let signature else { return .unsigned }
        if let keyHash = signature.keyHash, keyHash != key.keyHash(hashAlgorithm) { return .otherKey }
        if let publicKey = signature.publicKey, publicKey != key.subjectPublicKeyInfo { return .otherKey }
        switch (key, signature.kind) {
        case (.p256(let key), .ecdsaSignature):
            guard hashAlgorithm == .sha256 else { return .otherAlgorithm(hashAlgorithm.tlvKind) }
            guard let der = Self.derSequence(signature.bytes),
                let parsed = try? P256.Signing.ECDSASignature(derRepresentation: der)
            else { return .invalid }
            return key.isValidSignature(parsed, for: ImageHash(bytes: hash)) ? .valid : .invalid
        case (.ed25519(let key), .ed25519):
            let signed = isPureSignature ? bytes[..<hashedEnd] : hash[...]
            return key.isValidSignature(signature.bytes, for: signed) ? .valid : .invalid
        default:
            return .otherAlgorithm(signature.kind)
        }
    }

    /// The DER SEQUENCE at the start of `bytes`, without the zeros `--pad-sig` may append.
    private static func derSequence(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 2, bytes[0] == 0x30, bytes[1] < 0x80, 2 + Int(bytes[1]) <= bytes.count else {
            return nil
        }
        let length = 2 + Int(bytes[1])
        guard bytes[length...].allSatisfy({ $0 == 0 }) else { return nil }
        return Array(bytes[..<length])
    }
}

/// The image hash as a swift-crypto digest, so that ECDSA checks the signature of the hash taken
/// from the TLV (the only hash there is for an encrypted body) without hashing it again.
private struct ImageHash: Digest {
    static let byteCount = 32
    let bytes: [UInt8]

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }

    var description: String { "image hash \(bytes.hexString())" }
}
