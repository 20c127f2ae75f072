import Foundation

/// The reads whose cost does not grow with the rollout: a gateway's, `rollout list`'s, and
/// `rollout status` page by page.
extension EmbeddedRolloutStore {
    public func summary(of rollout: String) throws -> RolloutSummary {
        let header = try header(of: rollout)
        return RolloutSummary(rollout, header: header, tally: try tally(of: header))
    }

    public func devices(of rollout: String, named names: Set<String>) throws -> [DeviceStatus] {
        let header = try header(of: rollout)
        let json = String(decoding: try JSONEncoder().encode(Array(names)), as: UTF8.self)
        return try connection.query(
            """
            SELECT \(DeviceListingSQL.columns)
            FROM json_each(?2) v CROSS JOIN devices d ON d.rollout_id = ?1 AND d.device = v.value
            ORDER BY d.position
            """, [.integer(header.id), .text(json)]
        ).map(Self.device)
    }

    public func inventoryEntries(of rollout: String, named names: Set<String>) throws
        -> RolloutInventoryEntries?
    {
        let header = try header(of: rollout)
        let rollout = try connection.query(
            "SELECT inventory_folder, inventory_entry_prefix, inventory_entry_suffix FROM rollouts WHERE id = ?",
            [.integer(header.id)]
        ).first
        guard let rollout, let folder = rollout.text(0) else { return nil }
        let json = String(decoding: try JSONEncoder().encode(Array(names)), as: UTF8.self)
        let rows = try connection.query(
            """
            SELECT d.device, \(InventoryEntrySQL.entry)
            FROM json_each(?2) v CROSS JOIN devices d ON d.rollout_id = ?1 AND d.device = v.value
            WHERE \(InventoryEntrySQL.entry) IS NOT NULL
            """, [.integer(header.id), .text(json)])
        return RolloutInventoryEntries(
            folder: folder,
            entries: Dictionary(
                rows.compactMap { row in row.blob(1).map { (row.text(0) ?? "", $0) } },
                uniquingKeysWith: { first, _ in first }),
            frame: InventoryEntryFrame(storedPrefix: rollout.blob(1), suffix: rollout.blob(2)))
    }

    public func devices(of rollout: String, from position: Int, limit: Int) throws -> [DeviceStatus] {
        let header = try header(of: rollout)
        return try connection.query(
            """
            SELECT \(DeviceListingSQL.columns) FROM devices
            WHERE rollout_id = ? AND position >= ? AND position < ? ORDER BY position
            """, [.integer(header.id), .integer(Int64(position)), .integer(Int64(position + limit))]
        ).map(Self.device)
    }

    public func gateways(of rollout: String) throws -> [GatewayStatus] {
        try gateways(of: header(of: rollout))
    }

    func gateways(of header: RolloutHeader) throws -> [GatewayStatus] {
        try connection.query(RolloutRules.gatewaysSQL, [.integer(header.id)]).map { row in
            GatewayStatus(name: row.text(0) ?? "", lastSeen: Date(timeIntervalSince1970: row.real(1) ?? 0))
        }
    }

    /// The device of a row that selects `DeviceListingSQL.columns`.
    static func device(_ row: SQLiteRow) -> DeviceStatus {
        DeviceStatus(
            device: row.text(0) ?? "", result: row.text(1).flatMap(DeviceResult.init(rawValue:)),
            gateway: row.text(2), held: row.int(6) != 0, attempts: row.int(3), error: row.text(4),
            report: row.blob(5))
    }
}
