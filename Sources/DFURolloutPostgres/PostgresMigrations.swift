import DFURollout
import Logging
import PostgresNIO

/// The store's schema on PostgreSQL, as numbered steps kept in the repository and applied by the
/// tool (`PostgresRolloutStore.migrate`). A step is never edited once released: a change is a
/// new step. `schema_migrations` records the steps a database has had.
enum PostgresMigrations {
    struct Step {
        var version: Int
        var name: String
        /// One statement each (the extended query protocol takes one at a time).
        var statements: [String]
    }

    static let steps: [Step] = [
        Step(version: 1, name: "tables", statements: tables),
        Step(version: 2, name: "roles and grants", statements: rolesAndGrants),
        Step(version: 3, name: "gateway presence", statements: gatewayPresence),
        Step(version: 4, name: "rollout tallies", statements: rolloutTallies),
        Step(version: 5, name: "devices in order", statements: [DeviceListingSQL.positionIndex]),
        Step(version: 6, name: "inventory entries", statements: [inventoryEntries]),
        Step(version: 7, name: "device references per statement", statements: deviceReferences),
        Step(version: 8, name: "inventory entry frames", statements: inventoryEntryFrames),
    ]

    /// A rollout's inventory entry frame (`RolloutInventory.entryFrame`), and each device's entry
    /// alone for a rollout with one; a rollout without one keeps whole files in
    /// `inventory_entry`, as before. The new rollouts' devices leave `inventory_entry` empty, so a
    /// gateway of an earlier version reads their whole inventory instead of misreading an entry.
    /// The roles' grants on both tables cover the new columns.
    static let inventoryEntryFrames = [
        "ALTER TABLE rollouts ADD COLUMN inventory_entry_prefix bytea, ADD COLUMN inventory_entry_suffix bytea",
        "ALTER TABLE devices ADD COLUMN inventory_entry_alone bytea",
    ]

    /// Each device's inventory entry (`RolloutDevice.inventoryEntry`); the devices of rollouts
    /// made before have none, and their gateways read the whole inventory. The roles' grants on
    /// `devices` (the operator's INSERT, both roles' SELECT) cover the new column.
    static let inventoryEntries = "ALTER TABLE devices ADD COLUMN inventory_entry bytea"

    /// Each rollout's counts (`RolloutTallies`), those of existing rollouts counted: operators
    /// start them with a rollout, gateways count results.
    static let rolloutTallies: [String] = [
        RolloutTallies.tableSQL,
        RolloutTallies.backfillSQL,
        "GRANT SELECT ON rollout_tallies TO dfu_rollout_operator, dfu_rollout_gateway",
        "GRANT INSERT ON rollout_tallies TO dfu_rollout_operator",
        "GRANT UPDATE ON rollout_tallies TO dfu_rollout_gateway",
    ]

    /// A running gateway's instance and how long its presence lasts (`RolloutStore.announce`);
    /// the gateway role's INSERT and UPDATE on `gateways` cover the new columns.
    static let gatewayPresence: [String] = [
        "ALTER TABLE gateways ADD COLUMN instance text, ADD COLUMN present_until timestamptz"
    ]

    /// Rollouts, their packages and devices (with each device's lease), attempts and gateways.
    static let tables: [String] = [
        """
        CREATE TABLE rollouts (
            id bigserial PRIMARY KEY,
            name text NOT NULL UNIQUE,
            state text NOT NULL CHECK (state IN ('active', 'paused', 'cancelled')),
            canary integer NOT NULL CHECK (canary >= 0),
            max_failures integer CHECK (max_failures > 0),
            concurrency integer NOT NULL CHECK (concurrency > 0),
            inventory bytea,
            inventory_folder text,
            created_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        """
        CREATE TABLE packages (
            rollout_id bigint NOT NULL REFERENCES rollouts (id),
            sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
            name text NOT NULL,
            bytes bytea NOT NULL,
            PRIMARY KEY (rollout_id, sha256)
        )
        """,
        """
        CREATE TABLE devices (
            rollout_id bigint NOT NULL REFERENCES rollouts (id),
            device text NOT NULL,
            position integer NOT NULL,
            package_sha256 text,
            lease_token bigint NOT NULL DEFAULT 0,
            lease_gateway text,
            lease_expires_at timestamptz,
            last_gateway text,
            attempts integer NOT NULL DEFAULT 0,
            result text CHECK (result IN ('completed', 'skipped', 'failed', 'aborted')),
            error text,
            report bytea,
            PRIMARY KEY (rollout_id, device),
            FOREIGN KEY (rollout_id, package_sha256) REFERENCES packages (rollout_id, sha256)
        )
        """,
        """
        CREATE INDEX devices_waiting ON devices (rollout_id, position) WHERE result IS NULL
        """,
        """
        CREATE TABLE attempts (
            rollout_id bigint NOT NULL,
            device text NOT NULL,
            attempt integer NOT NULL,
            gateway text NOT NULL,
            lease_token bigint NOT NULL,
            started_at timestamptz NOT NULL DEFAULT now(),
            ended_at timestamptz,
            ending text,
            PRIMARY KEY (rollout_id, device, attempt),
            FOREIGN KEY (rollout_id, device) REFERENCES devices (rollout_id, device)
        )
        """,
        """
        CREATE TABLE gateways (
            name text PRIMARY KEY,
            first_seen timestamptz NOT NULL DEFAULT now(),
            last_seen timestamptz NOT NULL DEFAULT now()
        )
        """,
    ]

    /// Two group roles (docs/rollout.md, "Roles"): operators create and steer rollouts; gateways
    /// claim and report. Login roles are made members of one of them by the database's admin.
    static let rolesAndGrants: [String] = [
        """
        DO $$
        BEGIN
            IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'dfu_rollout_operator') THEN
                CREATE ROLE dfu_rollout_operator NOLOGIN;
            END IF;
            IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'dfu_rollout_gateway') THEN
                CREATE ROLE dfu_rollout_gateway NOLOGIN;
            END IF;
        END
        $$
        """,
        """
        GRANT SELECT ON rollouts, packages, devices, attempts, gateways, schema_migrations
            TO dfu_rollout_operator, dfu_rollout_gateway
        """,
        """
        GRANT INSERT ON rollouts, packages, devices TO dfu_rollout_operator
        """,
        """
        GRANT UPDATE (state) ON rollouts TO dfu_rollout_operator
        """,
        """
        GRANT USAGE ON SEQUENCE rollouts_id_seq TO dfu_rollout_operator
        """,
        """
        GRANT UPDATE (lease_token, lease_gateway, lease_expires_at, last_gateway, attempts, result, error, report)
            ON devices TO dfu_rollout_gateway
        """,
        """
        GRANT INSERT, UPDATE ON attempts, gateways TO dfu_rollout_gateway
        """,
    ]

    /// Applies the steps the database lacks, each in its own transaction, one migrating process
    /// at a time (an advisory lock held by the transaction). Needs a role that may create tables
    /// and roles.
    static func apply(on connection: PostgresConnection, logger: Logger) async throws {
        for step in steps {
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
                let applied = try await connection.query(
                    "SELECT 1 FROM schema_migrations WHERE version = \(step.version)", logger: logger
                ).collect()
                guard applied.isEmpty else { return }
                for statement in step.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(step.version), \(step.name))",
                    logger: logger)
                logger.info("rollout store: schema step \(step.version) (\(step.name)) applied")
            }
        }
    }

    /// Any number the same for every process of this tool.
    private static let lockKey: Int64 = 0x6466_7572_6f6c_6c74
}
