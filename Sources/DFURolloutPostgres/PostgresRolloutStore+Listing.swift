import DFURollout
import Foundation
import PostgresNIO

extension PostgresRolloutStore {
    /// The error class of a failed or aborted device, from its report's JSON.
    static let errorClassSQL = """
        CASE WHEN result IN ('failed', 'aborted')
          THEN coalesce(convert_from(report, 'UTF8')::jsonb #>> '{error,name}', 'unknown') END
        """

    public func listing(of rollout: String, _ query: DeviceListingQuery) async throws -> DeviceListing {
        try await transaction { connection in
            let header = try await self.header(of: rollout, on: connection)
            var binds = PostgresBindings()
            binds.append(header.id)
            let countRows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT \(DeviceListingSQL.gateway), \(DeviceListingSQL.standing), \(Self.errorClassSQL), count(*)
                        FROM devices WHERE rollout_id = $1 GROUP BY 1, 2, 3
                        """, binds: binds), logger: self.logger)
            var counts: [DeviceListing.Count] = []
            for try await (gateway, standing, errorClass, devices) in countRows.decode(
                (String?, String, String?, Int).self)
            {
                counts.append(
                    DeviceListing.Count(
                        gateway: gateway, standing: DeviceStanding(rawValue: standing) ?? .pending,
                        errorClass: errorClass, devices: devices))
            }
            var filter = "rollout_id = $1"
            for (expression, value) in [
                (DeviceListingSQL.standing, query.standing?.rawValue),
                (DeviceListingSQL.gateway, query.gateway),
                (Self.errorClassSQL, query.errorClass),
            ] {
                guard let value else { continue }
                binds.append(value)
                filter += " AND \(expression) = $\(binds.count)"
            }
            var matching = 0
            let matchingRows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT count(*) FROM devices WHERE \(filter)", binds: binds),
                logger: self.logger)
            for try await count in matchingRows.decode(Int.self) { matching = count }
            binds.append(query.limit)
            binds.append(query.offset)
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT \(DeviceListingSQL.columns) FROM devices WHERE \(filter)
                        ORDER BY position LIMIT $\(binds.count - 1) OFFSET $\(binds.count)
                        """, binds: binds), logger: self.logger)
            return DeviceListing(
                state: try await self.state(of: header, on: connection), counts: counts, matching: matching,
                devices: try await Self.devices(rows))
        }
    }

    /// The devices of rows that select `DeviceListingSQL.columns`.
    static func devices(_ rows: PostgresRowSequence) async throws -> [DeviceStatus] {
        var devices: [DeviceStatus] = []
        for try await (device, result, gateway, attempts, error, report, held) in rows.decode(
            (String, String?, String?, Int, String?, Data?, Bool).self)
        {
            devices.append(
                DeviceStatus(
                    device: device, result: result.flatMap(DeviceResult.init(rawValue:)),
                    gateway: gateway, held: held, attempts: attempts, error: error, report: report))
        }
        return devices
    }
}
