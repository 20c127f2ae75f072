import DFURollout
import Foundation
import PostgresNIO

/// The reads whose cost does not grow with the rollout: a gateway's, `rollout list`'s, and
/// `rollout status` page by page.
extension PostgresRolloutStore {
    public func summary(of rollout: String) async throws -> RolloutSummary {
        try await transaction { connection in
            let header = try await self.header(of: rollout, on: connection)
            return RolloutSummary(
                rollout, header: header, tally: try await self.tally(of: header, on: connection))
        }
    }

    public func inventoryEntries(of rollout: String, named names: Set<String>) async throws
        -> RolloutInventoryEntries?
    {
        try await transaction { connection in
            var binds = PostgresBindings()
            binds.append(rollout)
            binds.append(Array(names))
            // one statement: the rollout's folder and frame, joined with each named device's
            // entry (by key)
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT r.inventory_folder, r.inventory_entry_prefix, r.inventory_entry_suffix, d.device,
                            \(InventoryEntrySQL.entry)
                        FROM rollouts r
                        LEFT JOIN devices d ON d.rollout_id = r.id AND d.device = ANY($2::text[])
                            AND \(InventoryEntrySQL.entry) IS NOT NULL
                        WHERE r.name = $1
                        """, binds: binds), logger: self.logger)
            var found = false
            var entries = RolloutInventoryEntries(folder: "", entries: [:])
            for try await (folder, prefix, suffix, device, entry) in rows.decode(
                (String?, Data?, Data?, String?, Data?).self)
            {
                found = true
                guard let folder else { return nil }
                entries.folder = folder
                entries.frame = InventoryEntryFrame(storedPrefix: prefix, suffix: suffix)
                if let device, let entry { entries.entries[device] = entry }
            }
            guard found else { throw RolloutStoreError.noSuchRollout(rollout) }
            return entries
        }
    }

    public func devices(of rollout: String, from position: Int, limit: Int) async throws -> [DeviceStatus] {
        try await transaction { connection in
            let header = try await self.header(of: rollout, on: connection)
            var binds = PostgresBindings()
            binds.append(header.id)
            binds.append(position)
            binds.append(position + limit)
            // a range of positions (they run from 0 without a gap), not a LIMIT: before a new
            // rollout is analyzed, the planner would read and sort all its devices for each page
            return try await Self.devices(
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT \(DeviceListingSQL.columns) FROM devices
                            WHERE rollout_id = $1 AND position >= $2 AND position < $3 ORDER BY position
                            """, binds: binds), logger: self.logger))
        }
    }

    public func gateways(of rollout: String) async throws -> [GatewayStatus] {
        try await transaction { connection in
            try await self.gateways(of: try await self.header(of: rollout, on: connection), on: connection)
        }
    }

    func gateways(of header: RolloutHeader, on connection: PostgresConnection) async throws -> [GatewayStatus]
    {
        var binds = PostgresBindings()
        binds.append(header.id)
        var gateways: [GatewayStatus] = []
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: RolloutRules.gatewaysSQL, binds: binds), logger: logger)
        for try await (name, lastSeen) in rows.decode((String, Date).self) {
            gateways.append(GatewayStatus(name: name, lastSeen: lastSeen))
        }
        return gateways
    }

    public func devices(of rollout: String, named names: Set<String>) async throws -> [DeviceStatus] {
        try await transaction { connection in
            let header = try await self.header(of: rollout, on: connection)
            var binds = PostgresBindings()
            binds.append(header.id)
            binds.append(Array(names))
            // each name looked up on the devices' key
            return try await Self.devices(
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT \(DeviceListingSQL.columns) FROM devices
                            WHERE rollout_id = $1 AND device = ANY($2::text[]) ORDER BY position
                            """, binds: binds), logger: self.logger))
        }
    }
}
