import Foundation

/// A file that holds a secret (a store's password file, a passkey file, the page's operator
/// token): only its owner may read it, as libpq and OpenSSH require of theirs.
package enum SecretFile {
    /// Why `path` may not hold a secret (its group or others may read it), or nil when only its
    /// owner may. Throws when the file's attributes cannot be read.
    package static func exposure(of path: String) throws -> String? {
        let permissions =
            try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? 0o777
        return permissions & 0o077 == 0 ? nil : "\(path) may be read by others than its owner: chmod 600 it"
    }
}
