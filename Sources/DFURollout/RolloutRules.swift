/// The canary and max-failures rules, the same for every back end and for `fleet`
/// (docs/rollout.md).
///
/// A store keeps only the operator's word (`active`, `paused`, `cancelled`); `halted` and
/// `completed` follow from the devices' results, so a gateway never writes a rollout's state.
package enum RolloutRules {
    /// Why the results stop a rollout from starting more devices.
    package enum Halt: Equatable {
        /// The failures reached the rollout's `maxFailures`.
        case tooManyFailures
        /// A canary device ended `failed` or `aborted`.
        case canaryFailed
    }

    /// A rollout's counts (`RolloutTallies`).
    package struct Tally: Equatable {
        package var failures: Int
        /// Canary devices that ended `failed` or `aborted`.
        package var canaryFailures: Int
        /// Canary devices that ended `completed` or `skipped`.
        package var canaryPassed: Int
        /// Devices without a result.
        package var left: Int
        /// Devices with each result.
        package var results: [DeviceResult: Int]

        package init(
            failures: Int, canaryFailures: Int, canaryPassed: Int, left: Int,
            results: [DeviceResult: Int] = [:]
        ) {
            self.failures = failures
            self.canaryFailures = canaryFailures
            self.canaryPassed = canaryPassed
            self.left = left
            self.results = results
        }
    }

    /// The gateways that claimed devices of the rollout whose id is bound to `$1`, by name, with
    /// when each was last heard from (the same text on SQLite and PostgreSQL).
    package static let gatewaysSQL = """
        SELECT name, last_seen FROM gateways
        WHERE name IN (SELECT gateway FROM attempts WHERE rollout_id = $1) ORDER BY name
        """

    /// The rollout's state from the operator's word and the results so far.
    package static func state(stored: RolloutState, tally: Tally, maxFailures: Int?) -> RolloutState {
        if stored == .cancelled { return .cancelled }
        if tally.left == 0 { return .completed }
        if halt(tally: tally, maxFailures: maxFailures) != nil { return .halted }
        return stored
    }

    /// Why the results halt the rollout, if they do. When both rules hold, the failure limit
    /// is named: it is the one that stops every device, canary or not.
    package static func halt(tally: Tally, maxFailures: Int?) -> Halt? {
        if let maxFailures, tally.failures >= maxFailures { return .tooManyFailures }
        if tally.canaryFailures > 0 { return .canaryFailed }
        return nil
    }

    /// Devices at positions below this may be claimed: only the canary until every canary
    /// device passed, then all.
    package static func claimablePositions(canary: Int, tally: Tally) -> Int {
        canary > 0 && tally.canaryPassed < canary ? canary : Int.max
    }
}
