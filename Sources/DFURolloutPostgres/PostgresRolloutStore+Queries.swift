import DFURollout
import DFUSupport
import PostgresNIO

/// What the operator's and the gateway's calls share: transactions, a rollout's row and state.
extension PostgresRolloutStore {
    /// Runs `body` in a transaction on a pooled connection, for at most `callTimeout` (while the
    /// server is away the pool would wait for it for about a minute); errors become
    /// `RolloutStoreError`s. The timeout is `withRealTimeout`'s, which abandons a transaction
    /// that does not end when cancelled: a task group's waits for it, so a call could outlast
    /// its timeout and hold a gateway's loop.
    func transaction<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    )
        async throws -> Result
    {
        let server = "\(failures.location.host):\(failures.location.port)"
        let noAnswer = RolloutStoreError.storage(
            StoreFailure(.unreachable, "no answer from the server at \(server) within \(callTimeout)"))
        do {
            return try await withRealTimeout(
                callTimeout, orThrow: { noAnswer },
                { try await self.client.withTransaction(logger: self.logger) { try await body($0) } })
        } catch {
            throw failures.storeError(error, logger: logger)
        }
    }

    /// A rollout's row, without its devices; `lock` is a locking clause (`FOR UPDATE`) or empty.
    func header(of rollout: String, on connection: PostgresConnection, lock: String = "") async throws
        -> RolloutHeader
    {
        var query: PostgresQuery =
            "SELECT id, state, canary, max_failures, concurrency FROM rollouts WHERE name = \(rollout) "
        query.sql += lock
        let rows = try await connection.query(query, logger: logger)
        for try await (id, state, canary, maxFailures, concurrency) in rows.decode(
            (Int64, String, Int, Int?, Int).self)
        {
            return RolloutHeader(
                id: id, storedState: RolloutState(rawValue: state) ?? .cancelled, canary: canary,
                maxFailures: maxFailures, concurrency: concurrency)
        }
        throw RolloutStoreError.noSuchRollout(rollout)
    }

    /// The rollout's state: the operator's word, or what the results make of it.
    func state(of header: RolloutHeader, on connection: PostgresConnection) async throws -> RolloutState {
        RolloutRules.state(
            stored: header.storedState, tally: try await tally(of: header, on: connection),
            maxFailures: header.maxFailures)
    }

    /// The rollout's counts as the store keeps them (tests compare them with its devices).
    package func tally(of rollout: String) async throws -> RolloutRules.Tally {
        try await transaction { connection in
            try await self.tally(of: try await self.header(of: rollout, on: connection), on: connection)
        }
    }

    func tally(of header: RolloutHeader, on connection: PostgresConnection) async throws -> RolloutRules.Tally
    {
        var binds = PostgresBindings()
        binds.append(header.id)
        return try await tally(
            PostgresQuery(unsafeSQL: RolloutTallies.tallySQL, binds: binds), of: header, on: connection)
    }

    /// Runs `query`, which returns the columns of `RolloutTallies.tallySQL`, and reads them.
    func tally(_ query: PostgresQuery, of header: RolloutHeader, on connection: PostgresConnection)
        async throws -> RolloutRules.Tally
    {
        let rows = try await connection.query(query, logger: logger)
        for try await counts in rows.decode((Int, Int, Int, Int, Int, Int, Int).self) {
            return RolloutRules.Tally(
                counts: [counts.0, counts.1, counts.2, counts.3, counts.4, counts.5, counts.6])
        }
        throw RolloutStoreError.storage(
            StoreFailure(.other, "the store gave no tally for rollout \(header.id)"))
    }
}
