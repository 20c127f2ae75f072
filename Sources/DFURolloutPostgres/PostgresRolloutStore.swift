import DFURollout
import Foundation
import Logging
import PostgresNIO

/// The rollout store on PostgreSQL, shared by many gateways (docs/rollout.md).
///
/// Leases end by the database server's clock, the one every gateway shares. Claims lock the rows
/// they take (`FOR UPDATE SKIP LOCKED`), so concurrent gateways never take one device and never
/// wait for each other. The connection pool reconnects by itself: a restarted server fails the
/// calls made while it is down, and the calls after it succeed.
public final class PostgresRolloutStore: RolloutStore {
    let client: PostgresClient
    let logger: Logger
    /// The longest one call waits for the server; then it fails with `RolloutStoreError.storage`.
    let callTimeout: Duration
    /// The server's errors in people's words, naming this store and its password's source.
    let failures: PostgresFailureMessages
    private let running: Task<Void, Never>

    /// Connects to `location` as its user, with `password` (see `PostgresPassword.find`; its
    /// source is named when the server refuses it). With `migrate`, first brings the schema up
    /// to date (a role that may create tables and roles: the database's owner, not a gateway's
    /// or an operator's role). Each call fails once it has waited `callTimeout` for the server.
    public static func connect(
        to location: PostgresStoreLocation, password: PostgresPassword, migrate: Bool = false,
        callTimeout: Duration = .seconds(10), logger: Logger = Logger(label: "dfu-update.rollout-store")
    ) async throws -> PostgresRolloutStore {
        let failures = PostgresFailureMessages(location: location, passwordSource: password.source)
        // the pool runs before its first call (postgres-nio warns of a call made before)
        let store = try PostgresRolloutStore(
            location: location, password: password.secret, callTimeout: callTimeout, failures: failures,
            logger: logger)
        do {
            try await checkConnection(
                to: location, password: password.secret, migrate: migrate, callTimeout: callTimeout,
                logger: logger)
        } catch {
            try? await store.close()
            throw failures.storeError(error, logger: logger)
        }
        return store
    }

    /// Connects as `password`'s user with its secret, its source unknown (tests and tools that
    /// hold the password themselves).
    public static func connect(
        to location: PostgresStoreLocation, password: String?, migrate: Bool = false,
        callTimeout: Duration = .seconds(10), logger: Logger = Logger(label: "dfu-update.rollout-store")
    ) async throws -> PostgresRolloutStore {
        try await connect(
            to: location, password: PostgresPassword(secret: password, source: "the caller"),
            migrate: migrate,
            callTimeout: callTimeout, logger: logger)
    }

    private init(
        location: PostgresStoreLocation, password: String?, callTimeout: Duration,
        failures: PostgresFailureMessages, logger: Logger
    ) throws {
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: password,
            database: location.database, tls: try Self.poolTLS(location.tls))
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = 4
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.callTimeout = callTimeout
        self.failures = failures
        running = Task { await client.run() }
    }

    public func create(_ spec: RolloutSpec) async throws {
        try RolloutSpecCheck.validate(spec)
        try await transaction { connection in
            let exists = try await connection.query(
                "SELECT 1 FROM rollouts WHERE name = \(spec.name)", logger: self.logger
            ).collect()
            guard exists.isEmpty else { throw RolloutStoreError.rolloutExists(spec.name) }
            let rows = try await connection.query(
                """
                INSERT INTO rollouts (name, state, canary, max_failures, concurrency, inventory, inventory_folder,
                                      inventory_entry_prefix, inventory_entry_suffix)
                VALUES (\(spec.name), \(RolloutState.active.rawValue), \(spec.canary), \(spec.maxFailures),
                        \(spec.concurrency), \(spec.inventory?.bytes), \(spec.inventory?.folder),
                        \(spec.inventory?.entryFrame?.prefix), \(spec.inventory?.entryFrame?.suffix))
                RETURNING id
                """, logger: self.logger)
            var id: Int64 = 0
            for try await value in rows.decode(Int64.self) { id = value }
            for package in spec.packages {
                try await connection.query(
                    """
                    INSERT INTO packages (rollout_id, sha256, name, bytes)
                    VALUES (\(id), \(package.sha256), \(package.name), \(package.bytes))
                    """, logger: self.logger)
            }
            try await DeviceRowsCopy(
                rollout: id, devices: spec.devices, framed: spec.inventory?.entryFrame != nil
            ).send(
                on: connection, logger: self.logger)
            var binds = PostgresBindings()
            binds.append(id)
            binds.append(spec.devices.count)
            try await connection.query(
                PostgresQuery(unsafeSQL: RolloutTallies.insertSQL, binds: binds), logger: self.logger)
        }
    }

    @discardableResult
    public func apply(_ command: RolloutCommand, to rollout: String) async throws -> RolloutState {
        try await transaction { connection in
            let header = try await self.header(of: rollout, on: connection, lock: "FOR UPDATE")
            let current = try await self.state(of: header, on: connection)
            guard let target = command.target(from: current) else {
                throw RolloutStoreError.invalidTransition(from: current, command: command)
            }
            try await connection.query(
                "UPDATE rollouts SET state = \(target.rawValue) WHERE id = \(header.id)", logger: self.logger)
            return target
        }
    }

    public func rollouts() async throws -> [String] {
        try await transaction { connection in
            let rows = try await connection.query(
                "SELECT name FROM rollouts ORDER BY id", logger: self.logger)
            return try await rows.decode(String.self).reduce(into: []) { $0.append($1) }
        }
    }

    public func status(of rollout: String) async throws -> RolloutStatus {
        try await transaction { connection in
            let header = try await self.header(of: rollout, on: connection)
            var binds = PostgresBindings()
            binds.append(header.id)
            let devices = try await Self.devices(
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL:
                            "SELECT \(DeviceListingSQL.columns) FROM devices WHERE rollout_id = $1 ORDER BY position",
                        binds: binds), logger: self.logger))
            let gateways = try await self.gateways(of: header, on: connection)
            return RolloutStatus(
                rollout: rollout, state: try await self.state(of: header, on: connection),
                canary: header.canary, maxFailures: header.maxFailures, concurrency: header.concurrency,
                devices: devices, gateways: gateways)
        }
    }

    public func packages(of rollout: String) async throws -> [PackageName] {
        try await transaction { connection in
            let header = try await self.header(of: rollout, on: connection)
            let rows = try await connection.query(
                "SELECT name, sha256 FROM packages WHERE rollout_id = \(header.id) ORDER BY name",
                logger: self.logger)
            var names: [PackageName] = []
            for try await (name, sha256) in rows.decode((String, String).self) {
                names.append(PackageName(name: name, sha256: sha256))
            }
            return names
        }
    }

    public func package(_ sha256: String, of rollout: String) async throws -> Data {
        let bytes: Data? = try await transaction { connection in
            let header = try await self.header(of: rollout, on: connection)
            let rows = try await connection.query(
                "SELECT bytes FROM packages WHERE rollout_id = \(header.id) AND sha256 = \(sha256.lowercased())",
                logger: self.logger)
            return try await rows.decode(Data.self).reduce(nil) { $1 }
        }
        guard let bytes else { throw RolloutStoreError.noSuchPackage(sha256) }
        return try PackageDigest.verified(bytes, sha256: sha256)
    }

    public func inventory(of rollout: String) async throws -> RolloutInventory? {
        try await transaction { connection in
            let rows = try await connection.query(
                """
                SELECT inventory, inventory_folder, inventory_entry_prefix, inventory_entry_suffix
                FROM rollouts WHERE name = \(rollout)
                """,
                logger: self.logger)
            for try await (bytes, folder, prefix, suffix) in rows.decode((Data?, String?, Data?, Data?).self)
            {
                guard let bytes, let folder else { return nil }
                return RolloutInventory(
                    bytes: bytes, folder: folder,
                    entryFrame: InventoryEntryFrame(storedPrefix: prefix, suffix: suffix))
            }
            throw RolloutStoreError.noSuchRollout(rollout)
        }
    }

    public func close() async throws {
        running.cancel()
        await running.value
    }
}
