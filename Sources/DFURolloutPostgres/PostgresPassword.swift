import DFUSupport
import Foundation

/// The password of a store's user, and where it came from (for messages: never the password).
///
/// Never from the command line: the environment's `DFU_UPDATE_STORE_PASSWORD`, else `PGPASSWORD`,
/// else a password file in libpq's format (`host:port:database:user:password`, `*` matching
/// anything) at `DFU_UPDATE_STORE_PASSFILE`, `PGPASSFILE` or `~/.pgpass`. A file that its group
/// or others may read is refused, as libpq does. A password in the environment belongs to the
/// store `DFU_UPDATE_STORE` names when it names one: for another user or server (`--store
/// postgres://owner@…` while the operator's store and password are exported) it is not used, and
/// the password file is read instead.
public struct PostgresPassword: Sendable, Equatable, CustomStringConvertible {
    /// nil when none is given (the server may trust the connection, or use a certificate).
    public var secret: String?
    /// Where `secret` came from (`DFU_UPDATE_STORE_PASSWORD`, `line 2 of /home/op/.pgpass`), or,
    /// without one, why none was found.
    public var source: String

    public init(secret: String?, source: String) {
        self.secret = secret
        self.source = source
    }

    /// Where the password came from: printing one never shows it.
    public var description: String { secret == nil ? "no password (\(source))" : "a password from \(source)" }

    /// Finds the password of `location`'s user.
    public static func find(
        for location: PostgresStoreLocation,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> PostgresPassword {
        var notUsed: String?
        if let name = ["DFU_UPDATE_STORE_PASSWORD", "PGPASSWORD"].first(where: { environment[$0] != nil }) {
            if let owner = exportedStore(environment), !owner.isSameLogin(as: location) {
                notUsed =
                    "\(name) is the password of \(owner.login) (DFU_UPDATE_STORE), not of \(location.login)"
            } else {
                return PostgresPassword(secret: environment[name], source: name)
            }
        }
        let explicit = environment["DFU_UPDATE_STORE_PASSFILE"] ?? environment["PGPASSFILE"]
        let path = explicit ?? environment["HOME"].map { "\($0)/.pgpass" }
        guard let path, FileManager.default.fileExists(atPath: path) else {
            if let explicit { throw PostgresStoreLocationError("no password file at \(explicit)") }
            return PostgresPassword(
                secret: nil,
                source: [notUsed, "no password file"].compactMap { $0 }.joined(separator: ", and "))
        }
        if let problem = try OwnerOnlyFile.problem(at: path) { throw PostgresStoreLocationError(problem) }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            if let secret = match(String(line), location) {
                return PostgresPassword(secret: secret, source: "line \(index + 1) of \(path)")
            }
        }
        let noLine =
            "\(path) has no line for \(location.host):\(location.port):\(location.database):\(location.user)"
        return PostgresPassword(
            secret: nil, source: [notUsed, noLine].compactMap { $0 }.joined(separator: ", and "))
    }

    /// The PostgreSQL store `DFU_UPDATE_STORE` names, if it names one.
    private static func exportedStore(_ environment: [String: String]) -> PostgresStoreLocation? {
        environment["DFU_UPDATE_STORE"].flatMap { try? PostgresStoreLocation(url: $0) }
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

extension PostgresStoreLocation {
    /// `user@host:port`, for messages.
    var login: String { "\(user)@\(host):\(port)" }

    /// The same user on the same server.
    func isSameLogin(as other: PostgresStoreLocation) -> Bool {
        user == other.user && host == other.host && port == other.port
    }
}
