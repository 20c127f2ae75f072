import Crypto
import Foundation

/// An ECDSA P-256 public key that DFU init packets are signed for.
///
/// Reads a PEM public key (`-----BEGIN PUBLIC KEY-----`), a PEM private key (its public half is
/// used), or nrfutil's hex form: 128 hex digits, x then y, each 32 bytes little-endian, as
/// `nrfutil keys display --key pk --format hex` prints it (other text around them is ignored).
public struct DFUPublicKey: Sendable {
    /// Why a key cannot be read.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    let key: P256.Signing.PublicKey

    /// Wraps a key already in hand.
    public init(_ key: P256.Signing.PublicKey) { self.key = key }

    /// Parses the contents of a key file in any of the forms above.
    public init(text: String) throws(Invalid) {
        if text.contains("-----BEGIN") {
            if let key = try? P256.Signing.PublicKey(pemRepresentation: text) {
                self.key = key
            } else if let privateKey = try? P256.Signing.PrivateKey(pemRepresentation: text) {
                key = privateKey.publicKey
            } else {
                throw Invalid(description: "the PEM block is not an ECDSA P-256 key")
            }
            return
        }
        guard let raw = Self.nrfutilHexKey(in: text) else {
            throw Invalid(description: "neither a PEM key nor nrfutil's 128-hex-digit public key")
        }
        do {
            key = try P256.Signing.PublicKey(rawRepresentation: raw)
        } catch {
            throw Invalid(description: "the 128 hex digits are not a point on P-256")
        }
    }

    /// Reads a key file (see ``init(text:)``).
    public init(contentsOf url: URL) throws(Invalid) {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw Invalid(description: "\(url.path) cannot be read")
        }
        try self.init(text: text)
    }

    /// The x‖y big-endian bytes from the first run of exactly 128 hex digits, whose two halves are
    /// little-endian.
    private static func nrfutilHexKey(in text: String) -> [UInt8]? {
        let runs = text.utf8.split { !$0.isHexDigit }
        guard let run = runs.first(where: { $0.count == 128 }) else { return nil }
        var bytes: [UInt8] = []
        var index = run.startIndex
        while index < run.endIndex {
            let next = run.index(index, offsetBy: 2)
            bytes.append(UInt8(String(decoding: run[index..<next], as: UTF8.self), radix: 16)!)
            index = next
        }
        return bytes[0..<32].reversed() + bytes[32..<64].reversed()
    }

    /// Whether `signature` (r‖s, 32 bytes each, in the given byte order) signs `message` with
    /// ECDSA P-256 / SHA-256.
    func verifies(_ signature: [UInt8], of message: ArraySlice<UInt8>, littleEndian: Bool) -> Bool {
        guard signature.count == 64 else { return false }
        let raw = littleEndian ? signature[0..<32].reversed() + signature[32..<64].reversed() : signature
        guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: raw) else { return false }
        return key.isValidSignature(parsed, for: message)
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
