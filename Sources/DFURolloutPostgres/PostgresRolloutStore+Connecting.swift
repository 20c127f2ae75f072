import DFURollout
import DFUSupport
import Logging
import NIOSSL
import PostgresNIO

/// How a store reaches its server.
extension PostgresRolloutStore {
    /// Makes one connection, within `callTimeout`, and closes it, before the pool is used: a
    /// wrong password or a server that cannot be reached fails at once with the server's own
    /// message, where the pool would try again for about a minute and then name no cause. With
    /// `migrate`, brings the schema up to date on that connection first (without a time limit:
    /// another process's migration may hold the lock).
    static func checkConnection(
        to location: PostgresStoreLocation, password: String?, migrate: Bool, callTimeout: Duration,
        logger: Logger
    ) async throws {
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: password,
            database: location.database, tls: try connectionTLS(location.tls))
        // bounded: a server half-way through starting or stopping may accept and never answer
        let noAnswer = RolloutStoreError.storage(
            StoreFailure(
                .unreachable,
                "no answer from the server at \(location.host):\(location.port) within \(callTimeout.secondsForPeople)"
            ))
        let connection = try await withRealTimeout(
            callTimeout, orThrow: { noAnswer },
            { try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger) })
        do {
            if migrate { try await PostgresMigrations.apply(on: connection, logger: logger) }
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    static func poolTLS(_ mode: PostgresStoreLocation.TLSMode) throws -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: return .disable
        case .prefer: return .prefer(.makeClientConfiguration())
        case .require: return .require(.makeClientConfiguration())
        }
    }

    private static func connectionTLS(_ mode: PostgresStoreLocation.TLSMode) throws
        -> PostgresConnection.Configuration.TLS
    {
        switch mode {
        case .disable: return .disable
        case .prefer: return .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: return .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }
}
