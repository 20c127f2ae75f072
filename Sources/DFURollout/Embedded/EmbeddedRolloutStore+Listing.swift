extension EmbeddedRolloutStore {
    /// The error class of a failed or aborted device, from its report's JSON.
    static let errorClassSQL = """
        CASE WHEN result IN ('failed', 'aborted') THEN coalesce(
          CASE WHEN json_valid(CAST(report AS TEXT)) THEN json_extract(CAST(report AS TEXT), '$.error.name') END,
          'unknown') END
        """

    public func listing(of rollout: String, _ query: DeviceListingQuery) throws -> DeviceListing {
        let header = try header(of: rollout)
        let counts = try connection.query(
            """
            SELECT \(DeviceListingSQL.gateway), \(DeviceListingSQL.standing), \(Self.errorClassSQL), count(*)
            FROM devices WHERE rollout_id = ? GROUP BY 1, 2, 3
            """, [.integer(header.id)]
        ).map { row in
            DeviceListing.Count(
                gateway: row.text(0), standing: DeviceStanding(rawValue: row.text(1) ?? "") ?? .pending,
                errorClass: row.text(2), devices: row.int(3))
        }
        var filter = "rollout_id = ?"
        var values: [SQLiteValue] = [.integer(header.id)]
        if let standing = query.standing {
            filter += " AND \(DeviceListingSQL.standing) = ?"
            values.append(.text(standing.rawValue))
        }
        if let gateway = query.gateway {
            filter += " AND \(DeviceListingSQL.gateway) = ?"
            values.append(.text(gateway))
        }
        if let errorClass = query.errorClass {
            filter += " AND \(Self.errorClassSQL) = ?"
            values.append(.text(errorClass))
        }
        let matching = try connection.query("SELECT count(*) FROM devices WHERE \(filter)", values)[0].int(0)
        let devices = try connection.query(
            "SELECT \(DeviceListingSQL.columns) FROM devices WHERE \(filter) ORDER BY position LIMIT ? OFFSET ?",
            values + [.integer(Int64(query.limit)), .integer(Int64(query.offset))]
        ).map(Self.device)
        return DeviceListing(
            state: try state(of: header), counts: counts, matching: matching, devices: devices)
    }
}
