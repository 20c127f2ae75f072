import DFURollout
import Foundation
import PostgresNIO

/// A running gateway's presence under its name (`RolloutStore.announce`), in the server's clock.
extension PostgresRolloutStore {
    @discardableResult
    public func announce(_ gateway: String, instance: String, presence: Duration) async throws -> Date {
        try await transaction { connection in
            // taken when the name is new, this instance's, given back, or its presence ran out
            let rows = try await connection.query(
                """
                INSERT INTO gateways (name, instance, present_until)
                VALUES (\(gateway), \(instance), now() + \(presence.milliseconds) * interval '1 millisecond')
                ON CONFLICT (name) DO UPDATE SET last_seen = now(), instance = excluded.instance,
                    present_until = excluded.present_until
                WHERE gateways.instance IS NULL OR gateways.instance = excluded.instance
                    OR gateways.present_until <= now()
                RETURNING present_until
                """, logger: self.logger)
            for try await until in rows.decode(Date.self) { return until }
            let seen = try await connection.query(
                "SELECT last_seen FROM gateways WHERE name = \(gateway)", logger: self.logger)
            var lastSeen = Date(timeIntervalSince1970: 0)
            for try await date in seen.decode(Date.self) { lastSeen = date }
            throw RolloutStoreError.gatewayNameInUse(gateway, lastSeen: lastSeen)
        }
    }

    public func withdraw(_ gateway: String, instance: String) async throws {
        try await transaction { connection in
            _ = try await connection.query(
                """
                UPDATE gateways SET instance = NULL, present_until = NULL
                WHERE name = \(gateway) AND instance = \(instance)
                """, logger: self.logger)
        }
    }
}
