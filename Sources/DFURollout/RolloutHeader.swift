/// A rollout's row without its devices, as each back end reads it.
package struct RolloutHeader {
    package var id: Int64
    /// The operator's word: `active`, `paused` or `cancelled` (`RolloutRules`).
    package var storedState: RolloutState
    package var canary: Int
    package var maxFailures: Int?
    package var concurrency: Int

    package init(id: Int64, storedState: RolloutState, canary: Int, maxFailures: Int?, concurrency: Int) {
        self.id = id
        self.storedState = storedState
        self.canary = canary
        self.maxFailures = maxFailures
        self.concurrency = concurrency
    }
}
