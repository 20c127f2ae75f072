import NordicDFU

extension DFUPackage {
    /// Verifies each init packet's signature with the key in `text` (PEM or nrfutil's hex form).
    public func verifySignatures(withKey text: String) throws(SigningKeyUnreadable) -> SignatureVerdict {
        let key: DFUPublicKey
        do { key = try DFUPublicKey(text: text) } catch {
            throw SigningKeyUnreadable(
                error, advice: "give the key the package was signed with (nrfutil keys display)")
        }
        let checks = images.map { $0.verifySignature(with: key) }
        return SignatureVerdict(
            signed: checks.contains { $0 != nil },
            failing: checks.firstIndex(of: false).map { "the signature of image \($0 + 1) does not verify" })
    }
}
