import MCUmgr

extension MCUbootPackage {
    /// Verifies each image's signature TLV with the PEM key in `text` (ECDSA P-256 or Ed25519).
    public func verifySignatures(withKey text: String) throws(SigningKeyUnreadable) -> SignatureVerdict {
        let key: MCUbootPublicKey
        do { key = try MCUbootPublicKey(pem: text) } catch {
            throw SigningKeyUnreadable(
                error, advice: "give the PEM key the image was signed for (imgtool getpub)")
        }
        let checks = images.map { ($0.image.name, $0.image.verifySignature(with: key)) }
        let failing = checks.first { $0.1 != .valid && $0.1 != .unsigned }.map {
            // one image is the file itself, which the caller names already
            let whose = images.count == 1 ? "its" : "the image \($0.0)'s"
            return "\(whose) signature does not verify (\($0.1.reason))"
        }
        return SignatureVerdict(signed: checks.contains { $0.1 != .unsigned }, failing: failing)
    }
}

extension MCUbootSignatureCheck {
    /// Why a signature did not verify, in a few words.
    public var reason: String {
        switch self {
        case .valid: "valid"
        case .invalid: "invalid for this key"
        case .otherKey: "made for another key"
        case .otherAlgorithm(let kind): "\(kind), another algorithm than the key's"
        case .unsigned: "unsigned"
        }
    }
}
