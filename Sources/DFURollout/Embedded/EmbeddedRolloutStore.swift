import Foundation

/// The rollout store in one SQLite file, for one gateway and no server (the default).
///
/// Crash-safe: the file is in WAL mode with `synchronous = FULL`, and each call is one
/// transaction, so a process killed at any moment leaves every reported result and nothing of
/// a report that had not returned. Several connections (processes) may share the file: each
/// write takes the lock at its start (`BEGIN IMMEDIATE`), so no two claim one device.
public actor EmbeddedRolloutStore: RolloutStore {
    let connection: SQLiteConnection
    let clock: any RolloutClock

    /// Opens the store at `path`, creating the file and its tables if needed.
    public init(path: String, clock: any RolloutClock = SystemRolloutClock()) throws {
        connection = try SQLiteConnection(path: path)
        self.clock = clock
        try EmbeddedSchema.refuseAnotherProgramsDatabase(connection)
        try connection.execute(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON")
        try EmbeddedSchema.migrate(connection)
    }

    public func create(_ spec: RolloutSpec) throws {
        try RolloutSpecCheck.validate(spec)
        try connection.writeTransaction {
            guard try connection.query("SELECT 1 FROM rollouts WHERE name = ?", [.text(spec.name)]).isEmpty
            else {
                throw RolloutStoreError.rolloutExists(spec.name)
            }
            let row = try connection.query(
                """
                INSERT INTO rollouts (name, state, canary, max_failures, concurrency, inventory, inventory_folder,
                    inventory_entry_prefix, inventory_entry_suffix, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """,
                [
                    .text(spec.name), .text(RolloutState.active.rawValue), .integer(Int64(spec.canary)),
                    .nullable(spec.maxFailures), .integer(Int64(spec.concurrency)),
                    .nullable(spec.inventory?.bytes), .nullable(spec.inventory?.folder),
                    .nullable(spec.inventory?.entryFrame?.prefix),
                    .nullable(spec.inventory?.entryFrame?.suffix),
                    .real(clock.now().timeIntervalSince1970),
                ])
            let id = SQLiteValue.integer(Int64(row[0].int(0)))
            for package in spec.packages {
                try connection.query(
                    "INSERT INTO packages (rollout_id, sha256, name, bytes) VALUES (?, ?, ?, ?)",
                    [id, .text(package.sha256), .text(package.name), .blob(package.bytes)])
            }
            try insertDevices(spec.devices, rolloutID: id, framed: spec.inventory?.entryFrame != nil)
            try connection.query(RolloutTallies.insertSQL, [id, .integer(Int64(spec.devices.count))])
        }
    }

    /// Inserts the rollout's devices in inventory order, many to a statement; their entries are
    /// `framed` (each the entry alone) when the rollout has an entry frame.
    private func insertDevices(_ devices: [RolloutDevice], rolloutID id: SQLiteValue, framed: Bool) throws {
        let entryColumn = InventoryEntrySQL.column(framed: framed)
        let rowsPerStatement = 500  // 5 parameters a row, within SQLite's limit of 32766
        for start in stride(from: 0, to: devices.count, by: rowsPerStatement) {
            let batch = devices[start..<min(start + rowsPerStatement, devices.count)]
            let rows = Array(repeating: "(?, ?, ?, ?, ?)", count: batch.count).joined(separator: ", ")
            let values = zip(batch.indices, batch).flatMap { position, device -> [SQLiteValue] in
                [
                    id, .text(device.device), .integer(Int64(position)), .nullable(device.packageSHA256),
                    .nullable(device.inventoryEntry),
                ]
            }
            try connection.query(
                "INSERT INTO devices (rollout_id, device, position, package_sha256, \(entryColumn)) VALUES \(rows)",
                values)
        }
    }

    @discardableResult
    public func apply(_ command: RolloutCommand, to rollout: String) throws -> RolloutState {
        try connection.writeTransaction {
            let current = try state(of: header(of: rollout))
            guard let target = command.target(from: current) else {
                throw RolloutStoreError.invalidTransition(from: current, command: command)
            }
            try connection.query(
                "UPDATE rollouts SET state = ? WHERE name = ?", [.text(target.rawValue), .text(rollout)])
            return target
        }
    }

    public func rollouts() throws -> [String] {
        try connection.query("SELECT name FROM rollouts ORDER BY id").compactMap { $0.text(0) }
    }

    public func status(of rollout: String) throws -> RolloutStatus {
        let header = try header(of: rollout)
        let devices = try connection.query(
            "SELECT \(DeviceListingSQL.columns) FROM devices WHERE rollout_id = ? ORDER BY position",
            [.integer(header.id)]
        ).map(Self.device)
        let gateways = try gateways(of: header)
        return RolloutStatus(
            rollout: rollout, state: try state(of: header), canary: header.canary,
            maxFailures: header.maxFailures, concurrency: header.concurrency, devices: devices,
            gateways: gateways)
    }

    public func packages(of rollout: String) throws -> [PackageName] {
        let id = try header(of: rollout).id
        return try connection.query(
            "SELECT name, sha256 FROM packages WHERE rollout_id = ? ORDER BY name", [.integer(id)]
        ).map { PackageName(name: $0.text(0) ?? "", sha256: $0.text(1) ?? "") }
    }

    public func package(_ sha256: String, of rollout: String) throws -> Data {
        let id = try header(of: rollout).id
        let rows = try connection.query(
            "SELECT bytes FROM packages WHERE rollout_id = ? AND sha256 = ?",
            [.integer(id), .text(sha256.lowercased())])
        guard let bytes = rows.first?.blob(0) else { throw RolloutStoreError.noSuchPackage(sha256) }
        return try PackageDigest.verified(bytes, sha256: sha256)
    }

    public func inventory(of rollout: String) throws -> RolloutInventory? {
        let rows = try connection.query(
            """
            SELECT inventory, inventory_folder, inventory_entry_prefix, inventory_entry_suffix
            FROM rollouts WHERE name = ?
            """, [.text(rollout)])
        guard let row = rows.first else { throw RolloutStoreError.noSuchRollout(rollout) }
        guard let bytes = row.blob(0), let folder = row.text(1) else { return nil }
        return RolloutInventory(
            bytes: bytes, folder: folder,
            entryFrame: InventoryEntryFrame(storedPrefix: row.blob(2), suffix: row.blob(3)))
    }

    public func close() {
        try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
    }

    /// The rollout's state: the operator's word, or what the results make of it.
    func state(of header: RolloutHeader) throws -> RolloutState {
        RolloutRules.state(
            stored: header.storedState, tally: try tally(of: header), maxFailures: header.maxFailures)
    }

    /// The rollout's counts as the store keeps them (tests compare them with its devices).
    package func tally(of rollout: String) throws -> RolloutRules.Tally {
        try tally(of: header(of: rollout))
    }

    func tally(of header: RolloutHeader) throws -> RolloutRules.Tally {
        let row = try connection.query(RolloutTallies.tallySQL, [.integer(header.id)])[0]
        return RolloutRules.Tally(counts: (0..<7).map(row.int))
    }

    /// A rollout's row, without its devices.
    func header(of rollout: String) throws -> RolloutHeader {
        let rows = try connection.query(
            "SELECT id, state, canary, max_failures, concurrency FROM rollouts WHERE name = ?",
            [.text(rollout)])
        guard let row = rows.first else { throw RolloutStoreError.noSuchRollout(rollout) }
        return RolloutHeader(
            id: Int64(row.int(0)), storedState: RolloutState(rawValue: row.text(1) ?? "") ?? .cancelled,
            canary: row.int(2), maxFailures: row.optionalInt(3), concurrency: row.int(4))
    }
}
