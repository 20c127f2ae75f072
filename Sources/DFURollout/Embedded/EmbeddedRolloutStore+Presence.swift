import Foundation

/// A running gateway's presence under its name (`RolloutStore.announce`), one transaction each.
extension EmbeddedRolloutStore {
    @discardableResult
    public func announce(_ gateway: String, instance: String, presence: Duration) throws -> Date {
        let now = clock.now()
        let until = now.addingTimeInterval(presence.seconds)
        return try connection.writeTransaction {
            // taken when the name is new, this instance's, given back, or its presence ran out
            try connection.query(
                """
                INSERT INTO gateways (name, first_seen, last_seen, instance, present_until) VALUES (?1, ?2, ?2, ?3, ?4)
                ON CONFLICT (name) DO UPDATE SET last_seen = ?2, instance = ?3, present_until = ?4
                WHERE gateways.instance IS NULL OR gateways.instance = ?3 OR gateways.present_until <= ?2
                """,
                [
                    .text(gateway), .real(now.timeIntervalSince1970), .text(instance),
                    .real(until.timeIntervalSince1970),
                ])
            guard connection.changes == 1 else {
                let lastSeen = try connection.query(
                    "SELECT last_seen FROM gateways WHERE name = ?", [.text(gateway)]
                ).first?.real(0)
                throw RolloutStoreError.gatewayNameInUse(
                    gateway, lastSeen: Date(timeIntervalSince1970: lastSeen ?? 0))
            }
            return until
        }
    }

    public func withdraw(_ gateway: String, instance: String) throws {
        try connection.writeTransaction {
            _ = try connection.query(
                "UPDATE gateways SET instance = NULL, present_until = NULL WHERE name = ? AND instance = ?",
                [.text(gateway), .text(instance)])
        }
    }
}
