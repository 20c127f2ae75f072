/// A rollout's counts in `rollout_tallies`: one row per rollout, changed in the transaction that
/// records a result, so that neither a claim nor a report reads the rollout's devices
/// (docs/rollout.md, "Layout"). Leases are not counted: a lease ends by the clock, with no
/// write. The same SQL on SQLite and PostgreSQL.
package enum RolloutTallies {
    /// The table (a migration step on each back end).
    package static let tableSQL = """
        CREATE TABLE rollout_tallies (
            rollout_id bigint PRIMARY KEY REFERENCES rollouts (id),
            waiting integer NOT NULL,
            completed integer NOT NULL DEFAULT 0,
            skipped integer NOT NULL DEFAULT 0,
            failed integer NOT NULL DEFAULT 0,
            aborted integer NOT NULL DEFAULT 0,
            canary_passed integer NOT NULL DEFAULT 0,
            canary_failures integer NOT NULL DEFAULT 0
        )
        """

    /// Counts the devices of every rollout already stored, once, in the step that adds the table.
    package static let backfillSQL = """
        INSERT INTO rollout_tallies
            (rollout_id, waiting, completed, skipped, failed, aborted, canary_passed, canary_failures)
        SELECT r.id,
               count(d.device) FILTER (WHERE d.result IS NULL),
               count(d.device) FILTER (WHERE d.result = 'completed'),
               count(d.device) FILTER (WHERE d.result = 'skipped'),
               count(d.device) FILTER (WHERE d.result = 'failed'),
               count(d.device) FILTER (WHERE d.result = 'aborted'),
               count(d.device) FILTER (WHERE d.position < r.canary AND d.result IN ('completed', 'skipped')),
               count(d.device) FILTER (WHERE d.position < r.canary AND d.result IN ('failed', 'aborted'))
        FROM rollouts r LEFT JOIN devices d ON d.rollout_id = r.id
        GROUP BY r.id, r.canary
        """

    /// Starts the counts of the rollout whose id is bound to `$1`, with `$2` devices waiting.
    package static let insertSQL = "INSERT INTO rollout_tallies (rollout_id, waiting) VALUES ($1, $2)"

    /// Counts `result` for the device named `$2` of the rollout whose id is bound to `$1` (a
    /// canary device also in its canary column); returns the columns `tallySQL` reads.
    package static func countSQL(_ result: DeviceResult) -> String {
        // column names from the enum, never from input
        let canary = result.passesCanary ? "canary_passed" : "canary_failures"
        return """
            UPDATE rollout_tallies SET waiting = waiting - 1, \(result.rawValue) = \(result.rawValue) + 1,
                \(canary) = \(canary) + (
                    SELECT count(*) FROM devices d JOIN rollouts r ON r.id = d.rollout_id
                    WHERE d.rollout_id = $1 AND d.device = $2 AND d.position < r.canary)
            WHERE rollout_id = $1
            RETURNING \(columns)
            """
    }

    /// Reads the counts of the rollout whose id is bound to `$1`.
    package static let tallySQL = "SELECT \(columns) FROM rollout_tallies WHERE rollout_id = $1"

    /// The columns `RolloutRules.Tally(counts:)` takes, in its order.
    private static let columns =
        "waiting, completed, skipped, failed, aborted, canary_passed, canary_failures"
}

extension RolloutRules.Tally {
    /// The counts in the order `RolloutTallies` reads them.
    package init(counts: [Int]) {
        let results: [DeviceResult: Int] = [
            .completed: counts[1], .skipped: counts[2], .failed: counts[3], .aborted: counts[4],
        ]
        self.init(
            failures: counts[3], canaryFailures: counts[6], canaryPassed: counts[5], left: counts[0],
            results: results)
    }
}
