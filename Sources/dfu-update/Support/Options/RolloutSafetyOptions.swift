import ArgumentParser

/// The canary and the failure limit, as `fleet` and `rollout create` take them: one spelling
/// and one range in both.
struct RolloutSafetyOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: "Update this many devices first, 0…100000; go on only if they all succeed (default: 0).",
        transform: { try Ranged.integer($0, in: 0...100_000) })
    var canary = 0

    @Option(
        parsing: .unconditional,
        help: "Stop starting updates once this many devices have failed, 1…100000 (default: no limit).",
        transform: { try Ranged.integer($0, in: 1...100_000) })
    var maxFailures: Int?
}
