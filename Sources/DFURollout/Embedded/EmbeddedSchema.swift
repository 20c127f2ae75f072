/// The embedded store's tables (docs/rollout.md, "Layout"), versioned by SQLite's `user_version`.
enum EmbeddedSchema {
    static let version = 6

    /// Creates the tables of version 1 (times are seconds since 1970 in the store's clock).
    static let version1 = """
        CREATE TABLE rollouts (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            state TEXT NOT NULL,
            canary INTEGER NOT NULL,
            max_failures INTEGER,
            concurrency INTEGER NOT NULL,
            inventory BLOB,
            inventory_folder TEXT,
            created_at REAL NOT NULL
        );
        CREATE TABLE packages (
            rollout_id INTEGER NOT NULL REFERENCES rollouts(id),
            sha256 TEXT NOT NULL,
            name TEXT NOT NULL,
            bytes BLOB NOT NULL,
            PRIMARY KEY (rollout_id, sha256)
        );
        CREATE TABLE devices (
            rollout_id INTEGER NOT NULL REFERENCES rollouts(id),
            device TEXT NOT NULL,
            position INTEGER NOT NULL,
            package_sha256 TEXT,
            lease_token INTEGER NOT NULL DEFAULT 0,
            lease_gateway TEXT,
            lease_expires_at REAL,
            last_gateway TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            result TEXT,
            error TEXT,
            report BLOB,
            PRIMARY KEY (rollout_id, device),
            FOREIGN KEY (rollout_id, package_sha256) REFERENCES packages(rollout_id, sha256)
        );
        CREATE INDEX devices_waiting ON devices (rollout_id, position) WHERE result IS NULL;
        CREATE TABLE attempts (
            rollout_id INTEGER NOT NULL,
            device TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            gateway TEXT NOT NULL,
            lease_token INTEGER NOT NULL,
            started_at REAL NOT NULL,
            ended_at REAL,
            ending TEXT,
            PRIMARY KEY (rollout_id, device, attempt),
            FOREIGN KEY (rollout_id, device) REFERENCES devices(rollout_id, device)
        );
        CREATE TABLE gateways (
            name TEXT PRIMARY KEY,
            first_seen REAL NOT NULL,
            last_seen REAL NOT NULL
        );
        """

    /// Version 2: a running gateway's presence under its name (`RolloutStore.announce`).
    static let version2 = """
        ALTER TABLE gateways ADD COLUMN instance TEXT;
        ALTER TABLE gateways ADD COLUMN present_until REAL;
        """

    /// Version 3: each rollout's counts (`RolloutTallies`), those of existing rollouts counted.
    static let version3 = [RolloutTallies.tableSQL, RolloutTallies.backfillSQL]

    /// Version 4: the devices in inventory order, for pages of `rollout status`.
    static let version4 = DeviceListingSQL.positionIndex

    /// Version 5: each device's inventory entry (`RolloutDevice.inventoryEntry`); the devices of
    /// rollouts made before have none, and their gateways read the whole inventory.
    static let version5 = "ALTER TABLE devices ADD COLUMN inventory_entry BLOB"

    /// Version 6: a rollout's inventory entry frame (`RolloutInventory.entryFrame`), and each
    /// device's entry alone (`inventory_entry_alone`) for a rollout with one; a rollout without
    /// one keeps whole files in `inventory_entry`, as before.
    static let version6 = """
        ALTER TABLE rollouts ADD COLUMN inventory_entry_prefix BLOB;
        ALTER TABLE rollouts ADD COLUMN inventory_entry_suffix BLOB;
        ALTER TABLE devices ADD COLUMN inventory_entry_alone BLOB;
        """

    /// Throws when the file is an SQLite database this program did not make (no schema version,
    /// yet tables): `--store` or `--state` naming another program's database by mistake. Runs
    /// before anything is written, so such a file is left as it was (its journal mode too).
    static func refuseAnotherProgramsDatabase(_ connection: SQLiteConnection) throws {
        let version = try connection.query("PRAGMA user_version").first?.int(0) ?? 0
        guard version == 0 else { return }
        let tables = try connection.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name LIMIT 4"
        ).compactMap { $0.text(0) }
        guard !tables.isEmpty else { return }
        let named = tables.prefix(3).joined(separator: ", ") + (tables.count > 3 ? ", …" : "")
        throw RolloutStoreError.storage(
            StoreFailure(
                .notAStore,
                "\(connection.path) is an SQLite database of another program (its tables: \(named)), "
                    + "not a rollout store; it is left as it was; give the store's file, "
                    + "or a new file ending in .sqlite, .sqlite3 or .db"))
    }

    /// Brings the file to `version`, in one transaction; a newer file than this code is refused.
    static func migrate(_ connection: SQLiteConnection) throws {
        try connection.writeTransaction {
            let current = try connection.query("PRAGMA user_version").first?.int(0) ?? 0
            guard current <= version else {
                throw RolloutStoreError.storage(
                    StoreFailure(
                        .other,
                        "the store's schema \(current) is newer than this program's \(version): update dfu-update"
                    ))
            }
            if current < 1 { try connection.execute(version1) }
            if current < 2 { try connection.execute(version2) }
            if current < 3 { for statement in version3 { try connection.execute(statement) } }
            if current < 4 { try connection.execute(version4) }
            if current < 5 { try connection.execute(version5) }
            if current < 6 { try connection.execute(version6) }
            try connection.execute("PRAGMA user_version = \(version)")
        }
    }
}
