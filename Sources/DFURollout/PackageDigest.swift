import Crypto
import DFUSupport
import Foundation

/// SHA-256 of package bytes: the name a package has in the store, checked before its bytes are used.
public enum PackageDigest {
    /// Lowercase hex.
    public static func sha256Hex(of bytes: Data) -> String {
        SHA256.hash(data: bytes).hexString()
    }

    /// `bytes`, if they hash to `sha256`; otherwise `RolloutStoreError.packageDigestMismatch`.
    public static func verified(_ bytes: Data, sha256: String) throws -> Data {
        let actual = sha256Hex(of: bytes)
        guard actual == sha256.lowercased() else {
            throw RolloutStoreError.packageDigestMismatch(expected: sha256, actual: actual)
        }
        return bytes
    }
}
