/// What checking a package's signatures with one public key found, before anything is sent
/// (`flash --public-key`).
public struct SignatureVerdict: Sendable, Equatable {
    /// Whether any image is signed at all: an unsigned package has nothing to verify.
    public var signed: Bool
    /// Why the package fails the check, naming the image; nil when every signed image verifies.
    public var failing: String?

    public init(signed: Bool, failing: String?) {
        self.signed = signed
        self.failing = failing
    }
}

/// A public key's text that a package's family cannot read as the key its images are signed
/// with.
public struct SigningKeyUnreadable: Error, CustomStringConvertible {
    /// What reading the text found.
    public let reason: String
    /// What to give instead, in the family's own terms.
    public let advice: String

    public init(_ error: any Error, advice: String) {
        reason = "\(error)"
        self.advice = advice
    }

    public var description: String { "\(reason); \(advice)" }
}
