import DFUSupport
import Foundation

/// The gateway's calls: claims, leases and results, each one transaction.
extension EmbeddedRolloutStore {
    public func claim(
        _ rollout: String, for gateway: String, among visible: Set<String>?, limit: Int, lease: Duration
    ) throws -> [DeviceClaim] {
        let now = clock.now()
        return try connection.writeTransaction {
            let header = try header(of: rollout)
            try see(gateway, at: now)
            let tally = try tally(of: header)
            let state = RolloutRules.state(
                stored: header.storedState, tally: tally, maxFailures: header.maxFailures)
            guard state.takesClaims, limit > 0 else { return [] }
            let below = RolloutRules.claimablePositions(canary: header.canary, tally: tally)
            let candidates = try connection.query(
                claimableSQL(among: visible),
                [
                    .integer(header.id), .integer(Int64(below)), .real(now.timeIntervalSince1970),
                    .integer(Int64(limit)),
                ] + (try visible.map { [SQLiteValue.text(try Self.jsonArray($0))] } ?? []))
            let expiresAt = now.addingTimeInterval(lease.seconds)
            var claims: [DeviceClaim] = []
            for row in candidates {
                let device = row.text(0) ?? ""
                let claim = DeviceClaim(
                    rollout: rollout, device: device, gateway: gateway, leaseToken: Int64(row.int(1)) + 1,
                    expiresAt: expiresAt, attempt: row.int(2) + 1, packageSHA256: row.text(3))
                try take(claim, rolloutID: header.id, at: now)
                claims.append(claim)
            }
            return claims
        }
    }

    public func renew(_ claim: DeviceClaim, lease: Duration) throws -> LeaseRenewal {
        let now = clock.now()
        return try connection.writeTransaction {
            let header = try header(of: claim.rollout)
            let expiresAt = now.addingTimeInterval(lease.seconds)
            try fenced(
                claim, rolloutID: header.id, "SET lease_expires_at = ?",
                [.real(expiresAt.timeIntervalSince1970)])
            try see(claim.gateway, at: now)
            return LeaseRenewal(expiresAt: expiresAt, rolloutState: try state(of: header))
        }
    }

    @discardableResult
    public func report(_ claim: DeviceClaim, _ outcome: DeviceOutcome) throws -> RolloutState {
        let now = clock.now()
        return try connection.writeTransaction {
            let header = try header(of: claim.rollout)
            try fenced(
                claim, rolloutID: header.id,
                "SET result = ?, error = ?, report = ?, lease_gateway = NULL, lease_expires_at = NULL, last_gateway = ?",
                [
                    .text(outcome.result.rawValue), outcome.error.map { .text($0) } ?? .null,
                    outcome.report.map { .blob($0) } ?? .null, .text(claim.gateway),
                ])
            try endAttempt(of: claim, rolloutID: header.id, as: outcome.result.rawValue, at: now)
            let counts = try connection.query(
                RolloutTallies.countSQL(outcome.result), [.integer(header.id), .text(claim.device)])[0]
            return RolloutRules.state(
                stored: header.storedState, tally: RolloutRules.Tally(counts: (0..<7).map(counts.int)),
                maxFailures: header.maxFailures)
        }
    }

    public func release(_ claim: DeviceClaim) throws {
        let now = clock.now()
        try connection.writeTransaction {
            let header = try header(of: claim.rollout)
            try fenced(
                claim, rolloutID: header.id,
                "SET lease_gateway = NULL, lease_expires_at = NULL, last_gateway = ?",
                [.text(claim.gateway)])
            try endAttempt(of: claim, rolloutID: header.id, as: "released", at: now)
        }
    }

    /// The first `limit` devices a claim may take, in inventory order: waiting, below a
    /// position, with no lease or an expired one. Among `visible` it looks each visible device
    /// up by its key (a cost that follows the gateway's reach, not the rollout's size).
    private func claimableSQL(among visible: Set<String>?) -> String {
        let source =
            visible == nil
            ? "devices d" : "json_each(?5) v CROSS JOIN devices d ON d.rollout_id = ?1 AND d.device = v.value"
        return """
            SELECT d.device, d.lease_token, d.attempts, d.package_sha256 FROM \(source)
            WHERE d.rollout_id = ?1 AND d.result IS NULL AND d.position < ?2
              AND (d.lease_gateway IS NULL OR d.lease_expires_at <= ?3)
            ORDER BY d.position LIMIT ?4
            """
    }

    private static func jsonArray(_ names: Set<String>) throws -> String {
        String(decoding: try JSONEncoder().encode(Array(names)), as: UTF8.self)
    }

    /// Takes the device for `claim`: its token and attempt, and a row in `attempts`. An attempt
    /// whose lease expired ends `expired`.
    private func take(_ claim: DeviceClaim, rolloutID: Int64, at now: Date) throws {
        let key: [SQLiteValue] = [.integer(rolloutID), .text(claim.device)]
        try connection.query(
            "UPDATE attempts SET ended_at = ?, ending = 'expired' WHERE rollout_id = ? AND device = ? AND ended_at IS NULL",
            [.real(now.timeIntervalSince1970)] + key)
        try connection.query(
            """
            UPDATE devices SET lease_token = ?, lease_gateway = ?, lease_expires_at = ?, attempts = ?
            WHERE rollout_id = ? AND device = ?
            """,
            [
                .integer(claim.leaseToken), .text(claim.gateway),
                .real(claim.expiresAt.timeIntervalSince1970),
                .integer(Int64(claim.attempt)),
            ] + key)
        try connection.query(
            """
            INSERT INTO attempts (rollout_id, device, attempt, gateway, lease_token, started_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            key + [
                .integer(Int64(claim.attempt)), .text(claim.gateway), .integer(claim.leaseToken),
                .real(now.timeIntervalSince1970),
            ])
    }

    /// Updates the claim's device with `assignments` only if the claim still holds it: its
    /// token is the device's, the lease was not given back, and the device has no result.
    private func fenced(
        _ claim: DeviceClaim, rolloutID: Int64, _ assignments: String, _ values: [SQLiteValue]
    )
        throws
    {
        try connection.query(
            """
            UPDATE devices \(assignments) WHERE rollout_id = ? AND device = ? AND lease_token = ?
              AND lease_gateway IS NOT NULL AND result IS NULL
            """, values + [.integer(rolloutID), .text(claim.device), .integer(claim.leaseToken)])
        guard connection.changes == 1 else { throw RolloutStoreError.leaseLost(device: claim.device) }
    }

    private func endAttempt(of claim: DeviceClaim, rolloutID: Int64, as ending: String, at now: Date) throws {
        try connection.query(
            "UPDATE attempts SET ended_at = ?, ending = ? WHERE rollout_id = ? AND device = ? AND attempt = ?",
            [
                .real(now.timeIntervalSince1970), .text(ending), .integer(rolloutID), .text(claim.device),
                .integer(Int64(claim.attempt)),
            ])
    }

    /// Records that `gateway` was heard from.
    private func see(_ gateway: String, at now: Date) throws {
        try connection.query(
            """
            INSERT INTO gateways (name, first_seen, last_seen) VALUES (?1, ?2, ?2)
            ON CONFLICT (name) DO UPDATE SET last_seen = excluded.last_seen
            """, [.text(gateway), .real(now.timeIntervalSince1970)])
    }
}
