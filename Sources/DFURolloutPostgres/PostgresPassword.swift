import Foundation

/// Finds the password of a store's user, never from the command line: the environment's
/// `DFU_UPDATE_STORE_PASSWORD`, else `PGPASSWORD`, else a password file in libpq's format
/// (`host:port:database:user:password`, `*` matching anything) at `DFU_UPDATE_STORE_PASSFILE`,
/// `PGPASSFILE` or `~/.pgpass`. A file that its group or others may read is refused, as libpq does.
public enum PostgresPassword {
    /// nil when none is given (the server may trust the connection, or use a certificate).
    public static func find(
        for location: PostgresStoreLocation,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> String? {
        if let password = environment["DFU_UPDATE_STORE_PASSWORD"] ?? environment["PGPASSWORD"] {
            return password
        }
        let explicit = environment["DFU_UPDATE_STORE_PASSFILE"] ?? environment["PGPASSFILE"]
        let path = explicit ?? environment["HOME"].map { "\($0)/.pgpass" }
        guard let path, FileManager.default.fileExists(atPath: path) else {
            if let explicit { throw PostgresStoreLocationError("no password file at \(explicit)") }
            return nil
        }
        let permissions =
            try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? 0o777
        guard permissions & 0o077 == 0 else {
            throw PostgresStoreLocationError("\(path) may be read by others than its owner: chmod 600 it")
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").lazy.compactMap { match(String($0), location) }.first
    }

    /// The password of a password file's line if the line is for `location`.
    static func match(_ line: String, _ location: PostgresStoreLocation) -> String? {
        guard !line.hasPrefix("#") else { return nil }
        let fields = splitFields(line)
        guard fields.count == 5 else { return nil }
        let wanted = [location.host, String(location.port), location.database, location.user]
        for (field, value) in zip(fields, wanted) where field != "*" && field != value { return nil }
        return fields[4]
    }

    /// Splits on unescaped colons; `\:` and `\\` stand for `:` and `\`.
    private static func splitFields(_ line: String) -> [String] {
        var fields = [""]
        var escaped = false
        for character in line {
            if escaped {
                fields[fields.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        return fields
    }
}
