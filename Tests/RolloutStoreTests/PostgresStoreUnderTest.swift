import DFURollout
import DFURolloutPostgres
import Foundation
import PostgresNIO
import RolloutStoreTesting

/// The PostgreSQL store on the scratch server, as its owner; leases end by the server's clock.
final class PostgresStoreUnderTest: StoreUnderTest {
    let server: ScratchPostgres
    let shortLease = Duration.milliseconds(500)

    init(server: ScratchPostgres) { self.server = server }

    func open() async throws -> any RolloutStore { try await connect(migrate: false) }

    /// A connection as the schema's owner; with `migrate`, brings the schema up to date first.
    func connect(migrate: Bool) async throws -> PostgresRolloutStore {
        try await PostgresRolloutStore.connect(
            to: server.location, password: server.password, migrate: migrate)
    }

    /// Polls the server's clock (every 20 ms, for at most 30 s) until it is past `instant`.
    func passTime(beyond instant: Date) async throws {
        try await withClient { client in
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                let rows = try await client.query("SELECT clock_timestamp() > \(instant)")
                if try await rows.decode(Bool.self).reduce(false, { $1 }) { return }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw ScratchPostgresError(description: "the server's clock did not pass \(instant) within 30 s")
        }
    }

    /// Runs `body` with a client of its own, as the schema's owner.
    func withClient<T: Sendable>(_ body: (PostgresClient) async throws -> T) async throws -> T {
        let client = PostgresClient(
            configuration: .init(
                host: server.location.host, port: server.location.port, username: server.location.user,
                password: server.password, database: server.location.database, tls: .disable),
            backgroundLogger: .init(label: "test"))
        let running = Task { await client.run() }
        defer { running.cancel() }
        return try await body(client)
    }

    /// Creates `name`, a login role in `group` (or sets its password if it exists).
    func createLoginRole(_ name: String, in group: String, password: String) async throws {
        _ = try await withClient { client in
            try await client.query(
                PostgresQuery(
                    unsafeSQL: """
                        DO $$ BEGIN
                            IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(name)') THEN
                                CREATE ROLE \(name) LOGIN IN ROLE \(group);
                            END IF;
                            ALTER ROLE \(name) PASSWORD '\(password)';
                        END $$
                        """))
        }
    }
}

extension PostgresRolloutStore: TallyReading {}
