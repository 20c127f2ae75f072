import DFURollout
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// PostgreSQL's and the connection's errors in people's words: the server's own message and
/// SQLSTATE where there is one, the server's host and port, and what to try; typed by
/// `StoreFailure.Kind`, so that a gateway waits out an outage and stops at a refusal.
struct PostgresFailureMessages: Sendable {
    let location: PostgresStoreLocation
    /// Where the password came from (never the password).
    let passwordSource: String

    /// `error` as the store reports it: its own errors as they are, the rest as `.storage`.
    func storeError(_ error: any Error, logger: Logger) -> any Error {
        if let transaction = error as? PostgresTransactionError {
            let inner =
                transaction.closureError ?? transaction.beginError ?? transaction.commitError
                ?? transaction.rollbackError
            return storeError(inner ?? error, logger: logger)
        }
        if error is RolloutStoreError { return error }
        logger.debug("rollout store: \(String(reflecting: error))")
        return RolloutStoreError.storage(failure(error))
    }

    private var server: String { "\(location.host):\(location.port)" }

    private func failure(_ error: any Error) -> StoreFailure {
        if let psql = error as? PSQLError {
            if let message = psql.serverInfo?[.message] {
                return serverFailure(sqlState: psql.serverInfo?[.sqlState] ?? "?", message: message)
            }
            return clientFailure(psql)
        }
        return connectionFailure(error)
    }

    /// An error the server sent, by its SQLSTATE.
    private func serverFailure(sqlState: String, message: String) -> StoreFailure {
        let server = "PostgreSQL \(sqlState): \(message)"
        switch sqlState {
        case "28P01", "28000":
            return StoreFailure(
                .authentication,
                "\(server) (at \(self.server); the password came from \(passwordSource)): check that password "
                    + "(docs/rollout.md, \"Connecting\", says where \(location.user)'s is read from)")
        case "42501":
            return StoreFailure(
                .permission,
                "\(server): the role \(location.user) may not do this; a gateway's role needs the grants of "
                    + "dfu_rollout_gateway (GRANT dfu_rollout_gateway TO \(location.user)), an operator's those "
                    + "of dfu_rollout_operator, and `rollout migrate` the database's owner (docs/rollout.md, \"Roles\")"
            )
        case "42P01", "42703", "3F000":
            return StoreFailure(
                .notMigrated,
                "\(server): the store \(location.description) has not been migrated (or not to this version); "
                    + "run `dfu-update rollout migrate --store postgres://OWNER@\(self.server)/\(location.database)` "
                    + "as the database's owner")
        case "3D000":
            return StoreFailure(.other, "\(server) (at \(self.server)): check the database in the store URL")
        case _
        where sqlState.hasPrefix("08") || sqlState.hasPrefix("53") || sqlState.hasPrefix("57P")
            || sqlState == "40001" || sqlState == "40P01":
            return StoreFailure(.unreachable, "\(server) (at \(self.server)); trying again may succeed")
        default:
            return StoreFailure(.other, server)
        }
    }

    /// An error of postgres-nio's own, without a server message.
    private func clientFailure(_ error: PSQLError) -> StoreFailure {
        switch error.code {
        case .sslUnsupported:
            return StoreFailure(
                .tls,
                "the server at \(server) offers no TLS, and the store URL requires it (sslmode=require): "
                    + "enable TLS on the server, or use ?sslmode=disable on a network you trust")
        case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            return StoreFailure(
                .tls, "TLS with the server at \(server) failed: check its TLS set-up, or use ?sslmode=disable"
            )
        case .authMechanismRequiresPassword:
            return StoreFailure(
                .authentication,
                "the server at \(server) asks a password of \(location.user) and none was given "
                    + "(\(passwordSource)): give it in a password file line "
                    + "\(location.host):\(location.port):\(location.database):\(location.user):PASSWORD "
                    + "(~/.pgpass, mode 600), or in DFU_UPDATE_STORE_PASSWORD with no DFU_UPDATE_STORE or "
                    + "one naming this user")
        case .unsupportedAuthMechanism, .saslError:
            return StoreFailure(
                .authentication,
                "the server at \(server) asks \(location.user) to log in by a method this tool does not "
                    + "speak: give the role a password (scram-sha-256 or md5) in pg_hba.conf")
        case .connectionError:
            return error.underlying.map(connectionFailure)
                ?? StoreFailure(.unreachable, "cannot connect to the server at \(server)")
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return StoreFailure(.unreachable, "the connection to the server at \(server) was closed")
        default:
            return StoreFailure(
                .other,
                "the PostgreSQL client failed talking to \(server) (\(error.code)); see --log-level debug")
        }
    }

    /// A failure below PostgreSQL: the name, the socket, TLS.
    private func connectionFailure(_ error: any Error) -> StoreFailure {
        switch error {
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, let dns = error.dnsAError ?? error.dnsAAAAError {
                return connectionFailure(dns)
            }
            return error.connectionErrors.first.map { connectionFailure($0.error) }
                ?? StoreFailure(.unreachable, "cannot connect to the server at \(server)")
        case let error as SocketAddressError.UnknownHost:
            return StoreFailure(
                .unreachable,
                "the store's host \(location.host) is unknown (\(error.errorDescription)): "
                    + "check the host name in the store URL")
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            return StoreFailure(
                .unreachable,
                "nothing answers at \(server) (connection refused): start the PostgreSQL server, "
                    + "or check the host and port in the store URL")
        case let error as IOError:
            return StoreFailure(
                .unreachable,
                "cannot connect to the server at \(server): \(String(cString: strerror(error.errnoCode)))")
        case ChannelError.connectTimeout:
            return StoreFailure(
                .unreachable, "no answer from \(server) in time: check the host and the network")
        case is NIOSSLError, is BoringSSLError:
            return StoreFailure(
                .tls,
                "the TLS handshake with \(server) failed (is its certificate trusted here?): "
                    + "fix the server's certificate, or use ?sslmode=disable on a network you trust")
        default:
            return StoreFailure(.other, "talking to the server at \(server) failed; see --log-level debug")
        }
    }
}
