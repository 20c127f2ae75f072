import DFURollout
import Foundation
import PostgresNIO

/// The gateway's calls: claims, leases and results, each one transaction, in the server's clock.
extension PostgresRolloutStore {
    public func claim(
        _ rollout: String, for gateway: String, among visible: Set<String>?, limit: Int, lease: Duration
    ) async throws -> [DeviceClaim] {
        try await transaction { connection in
            let header = try await self.header(of: rollout, on: connection)
            try await self.see(gateway, on: connection)
            let tally = try await self.tally(of: header, on: connection)
            let state = RolloutRules.state(
                stored: header.storedState, tally: tally, maxFailures: header.maxFailures)
            guard state.takesClaims, limit > 0 else { return [] }
            let below = RolloutRules.claimablePositions(canary: header.canary, tally: tally)
            let rows = try await connection.query(
                """
                WITH free AS (
                    SELECT device FROM devices
                    WHERE rollout_id = \(header.id) AND result IS NULL AND position < \(Int64(clamping: below))
                      AND (lease_gateway IS NULL OR lease_expires_at <= now())
                      AND (\(visible.map { Array($0) })::text[] IS NULL OR device = ANY(\(visible.map { Array($0) })))
                    ORDER BY position LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE devices d SET lease_token = d.lease_token + 1, lease_gateway = \(gateway),
                    lease_expires_at = now() + \(lease.milliseconds) * interval '1 millisecond', attempts = d.attempts + 1
                FROM free WHERE d.rollout_id = \(header.id) AND d.device = free.device
                RETURNING d.position, d.device, d.lease_token, d.lease_expires_at, d.attempts, d.package_sha256
                """, logger: self.logger)
            var claims: [(position: Int, claim: DeviceClaim)] = []
            for try await (position, device, token, expiresAt, attempt, package) in rows.decode(
                (Int, String, Int64, Date, Int, String?).self)
            {
                let claim = DeviceClaim(
                    rollout: rollout, device: device, gateway: gateway, leaseToken: token,
                    expiresAt: expiresAt,
                    attempt: attempt, packageSHA256: package)
                claims.append((position, claim))
            }
            for (_, claim) in claims {
                try await self.recordAttempt(of: claim, rolloutID: header.id, on: connection)
            }
            return claims.sorted { $0.position < $1.position }.map(\.claim)
        }
    }

    public func renew(_ claim: DeviceClaim, lease: Duration) async throws -> LeaseRenewal {
        try await transaction { connection in
            let header = try await self.header(of: claim.rollout, on: connection)
            let expiresAt = try await self.fenced(
                claim, rolloutID: header.id, on: connection,
                "lease_expires_at = now() + \(lease.milliseconds) * interval '1 millisecond'")
            try await self.see(claim.gateway, on: connection)
            return LeaseRenewal(
                expiresAt: expiresAt, rolloutState: try await self.state(of: header, on: connection))
        }
    }

    @discardableResult
    public func report(_ claim: DeviceClaim, _ outcome: DeviceOutcome) async throws -> RolloutState {
        try await transaction { connection in
            let header = try await self.header(of: claim.rollout, on: connection)
            _ = try await self.fenced(
                claim, rolloutID: header.id, on: connection,
                """
                result = \(outcome.result.rawValue), error = \(outcome.error), report = \(outcome.report),
                lease_gateway = NULL, lease_expires_at = NULL, last_gateway = \(claim.gateway)
                """)
            try await self.endAttempt(
                of: claim, rolloutID: header.id, as: outcome.result.rawValue, on: connection)
            // last: the counts' row stays locked until the commit, and reports queue on it
            var binds = PostgresBindings()
            binds.append(header.id)
            binds.append(claim.device)
            let tally = try await self.tally(
                PostgresQuery(unsafeSQL: RolloutTallies.countSQL(outcome.result), binds: binds), of: header,
                on: connection)
            return RolloutRules.state(
                stored: header.storedState, tally: tally, maxFailures: header.maxFailures)
        }
    }

    public func release(_ claim: DeviceClaim) async throws {
        try await transaction { connection in
            let header = try await self.header(of: claim.rollout, on: connection)
            _ = try await self.fenced(
                claim, rolloutID: header.id, on: connection,
                "lease_gateway = NULL, lease_expires_at = NULL, last_gateway = \(claim.gateway)")
            try await self.endAttempt(of: claim, rolloutID: header.id, as: "released", on: connection)
        }
    }

    /// Sets `assignments` on the claim's device only if the claim still holds it: its token is
    /// the device's, the lease was not given back, and the device has no result. Returns the
    /// lease's end after it.
    private func fenced(
        _ claim: DeviceClaim, rolloutID: Int64, on connection: PostgresConnection,
        _ assignments: PostgresQuery
    ) async throws -> Date {
        var query = PostgresQuery(unsafeSQL: "UPDATE devices SET ", binds: assignments.binds)
        query.sql += assignments.sql
        let base = assignments.binds.count
        // `coalesce(result, '') = ''` is `result IS NULL` (no result is empty) in a form that
        // keeps the planner on the device's key: before a new rollout's devices are analyzed,
        // it otherwise reads all of them through the index of waiting devices
        query.sql += """
             WHERE rollout_id = $\(base + 1) AND device = $\(base + 2) AND lease_token = $\(base + 3)
              AND lease_gateway IS NOT NULL AND coalesce(result, '') = ''
            RETURNING coalesce(lease_expires_at, now())
            """
        query.binds.append(rolloutID)
        query.binds.append(claim.device)
        query.binds.append(claim.leaseToken)
        let rows = try await connection.query(query, logger: logger)
        guard let expiresAt = try await rows.decode(Date.self).reduce(nil, { $1 }) else {
            throw RolloutStoreError.leaseLost(device: claim.device)
        }
        return expiresAt
    }

    /// Ends the device's attempt whose lease expired, and starts the claim's.
    private func recordAttempt(of claim: DeviceClaim, rolloutID: Int64, on connection: PostgresConnection)
        async throws
    {
        try await connection.query(
            """
            UPDATE attempts SET ended_at = now(), ending = 'expired'
            WHERE rollout_id = \(rolloutID) AND device = \(claim.device) AND ended_at IS NULL
            """, logger: logger)
        try await connection.query(
            """
            INSERT INTO attempts (rollout_id, device, attempt, gateway, lease_token)
            VALUES (\(rolloutID), \(claim.device), \(claim.attempt), \(claim.gateway), \(claim.leaseToken))
            """, logger: logger)
    }

    private func endAttempt(
        of claim: DeviceClaim, rolloutID: Int64, as ending: String, on connection: PostgresConnection
    ) async throws {
        try await connection.query(
            """
            UPDATE attempts SET ended_at = now(), ending = \(ending)
            WHERE rollout_id = \(rolloutID) AND device = \(claim.device) AND attempt = \(claim.attempt)
            """, logger: logger)
    }

    /// Records that `gateway` was heard from.
    private func see(_ gateway: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO gateways (name) VALUES (\(gateway))
            ON CONFLICT (name) DO UPDATE SET last_seen = now()
            """, logger: logger)
    }
}

extension Duration {
    /// Whole milliseconds, for an SQL interval.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
