import Foundation

/// Where a PostgreSQL store is: `postgres://USER@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`.
///
/// The URL never carries the password, since it is given on command lines and written in
/// logs: the password comes from the environment or from a file only its owner can read
/// (`PostgresPassword`).
public struct PostgresStoreLocation: Sendable, Equatable {
    public enum TLSMode: String, Sendable {
        case disable
        case prefer
        case require
    }

    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    public var tls: TLSMode

    public init(host: String, port: Int = 5432, user: String, database: String, tls: TLSMode = .prefer) {
        self.host = host
        self.port = port
        self.user = user
        self.database = database
        self.tls = tls
    }

    /// Parses a `postgres://` or `postgresql://` URL.
    public init(url text: String) throws {
        guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? "")
        else {
            throw PostgresStoreLocationError("not a postgres:// URL: \(text)")
        }
        guard url.password == nil else {
            throw PostgresStoreLocationError(
                "the store URL has a password: give it in DFU_UPDATE_STORE_PASSWORD or a password file instead"
            )
        }
        guard let host = url.host, !host.isEmpty, let user = url.user, !user.isEmpty else {
            throw PostgresStoreLocationError(
                "the store URL needs a user and a host: postgres://USER@HOST/DATABASE")
        }
        // a port out of range would be refused by the connection as if nothing answered there
        if let port = url.port, !(1...65535).contains(port) {
            throw PostgresStoreLocationError(
                "the store URL's port \(port) is not from 1 to 65535: postgres://USER@HOST[:PORT]/DATABASE")
        }
        let database = String(url.path.drop { $0 == "/" })
        var tls = TLSMode.prefer
        for item in url.queryItems ?? [] {
            guard item.name == "sslmode", let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                throw PostgresStoreLocationError(
                    "unknown store URL option \(item.name)=\(item.value ?? "") (sslmode=disable|prefer|require)"
                )
            }
            tls = mode
        }
        self.init(
            host: host, port: url.port ?? 5432, user: user, database: database.isEmpty ? user : database,
            tls: tls)
    }

    /// The URL without a password, for logs and messages.
    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)"
    }
}

/// A store URL that cannot be used.
public struct PostgresStoreLocationError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
