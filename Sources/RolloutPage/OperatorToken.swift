import Crypto
import DFUSupport
import Foundation

/// The operator's credential for pause, resume and cancel: one line in a file that only its
/// owner may read, as the store's password file. Never on a command line, in a log or a page.
public struct OperatorToken: Sendable {
    let secret: [UInt8]

    /// Reads the token at `path`; throws `OperatorTokenError` when the file is missing, readable
    /// by others, or holds no token.
    public init(contentsOf path: String) throws {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw OperatorTokenError(
                "\(path) does not exist or cannot be read; write the token into it (chmod 600)")
        }
        if let exposure = try SecretFile.exposure(of: path) { throw OperatorTokenError(exposure) }
        guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw OperatorTokenError("\(path) cannot be read as text; write the token into it (chmod 600)")
        }
        let text = contents.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count >= 16 else {
            throw OperatorTokenError(
                "\(path) holds no token of at least 16 characters; write one, e.g. `openssl rand -hex 32 > \(path)`"
            )
        }
        secret = Array(text.utf8)
    }

    init(secret: String) { self.secret = Array(secret.utf8) }

    /// Whether `candidate` is the token, compared in constant time.
    func accepts(_ candidate: String) -> Bool {
        // comparing the digests keeps the time independent of where the strings differ
        let given = SHA256.hash(data: Array(candidate.utf8))
        let wanted = SHA256.hash(data: secret)
        return zip(given, wanted).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// An operator token file that cannot be used; the message says which and what to do.
public struct OperatorTokenError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
