/// Why a store's engine failed, told apart by what the caller does next: only an outage
/// (`unreachable`) passes by itself; the others need a person (a password, a grant, a migration).
public struct StoreFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The server cannot be reached or cannot answer now (down, restarting, a cut network,
        /// no answer in time, the file locked by another process): trying again may succeed.
        case unreachable
        /// The server refused the user: a wrong or missing password, or no entry for it.
        case authentication
        /// The user may not do this: its role lacks the grants (PostgreSQL 42501).
        case permission
        /// The store's tables are missing or older than this program: `rollout migrate`.
        case notMigrated
        /// TLS was required and the server offers none, or the TLS handshake failed.
        case tls
        /// The file is no rollout store: not an SQLite database, or another program's; it is
        /// left as it was.
        case notAStore
        /// Anything else: the message says what.
        case other
    }

    public var kind: Kind
    /// One line for a person: what failed, on which store, and what to try.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Whether waiting may cure it (a gateway keeps trying only through these).
    public var isOutage: Bool { kind == .unreachable }

    public var description: String { message }
}
