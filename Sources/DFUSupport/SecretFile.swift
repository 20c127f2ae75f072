import Foundation

/// A file that holds a secret (a store's password file, a passkey file, the page's operator
/// token): only its owner may read it, as libpq and OpenSSH require of theirs.
package enum SecretFile {
    /// Why `path` may not hold a secret (it is a folder, or its group or others may read it), or
    /// nil when it is a file only its owner may read. Throws when its attributes cannot be read.
    package static func exposure(of path: String) throws -> String? {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        if attributes[.type] as? FileAttributeType == .typeDirectory {
            return "\(path) is a folder; name the file in it that holds the secret"
        }
        let permissions = attributes[.posixPermissions] as? Int ?? 0o777
        return permissions & 0o077 == 0 ? nil : "\(path) may be read by others than its owner: chmod 600 it"
    }
}
