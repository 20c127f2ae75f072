import Foundation

/// A file holding a secret (a store's password file, the page's operator token): refused when
/// its group or others may read it, as libpq refuses such a password file.
package enum OwnerOnlyFile {
    /// Why `path` may not hold a secret, or nil when only its owner may read it.
    package static func problem(at path: String) throws -> String? {
        let permissions =
            try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? 0o777
        guard permissions & 0o077 == 0 else {
            return "\(path) may be read by others than its owner: chmod 600 it"
        }
        return nil
    }
}
