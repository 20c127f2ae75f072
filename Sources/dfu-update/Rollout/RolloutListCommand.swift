import ArgumentParser
import DFURollout
import DFUSupport

/// `dfu-update rollout list`: the rollouts a store holds, oldest first.
struct RolloutListCommand: ContractCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the store's rollouts: each one's state and how many of its devices are pending.",
        discussion: """
            With --json, one object: {"rollouts": [{"rollout", "state", "devices", "pending"}]}, \
            oldest first; `pending`: devices without a result yet.
            """)

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print one JSON object (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        // summaries: the kept counts, not every device of every rollout; a store file not made
        // yet holds none (and is not made here)
        var summaries: [RolloutSummary] = []
        if try !store.isMissingFile() {
            summaries = try await withStore(store) { store in
                var summaries: [RolloutSummary] = []
                for name in try await store.rollouts() { summaries.append(try await store.summary(of: name)) }
                return summaries
            }
        }
        if json {
            Output.line(.object([("rollouts", .array(summaries.map { .object(Self.members($0)) }))]))
        } else if summaries.isEmpty {
            Output.line("the store has no rollouts: \(try store.location())")
        } else {
            for summary in summaries {
                Output.line(
                    "\(summary.rollout)  \(summary.state.rawValue)  \(Plural.count(summary.devices, "device")), \(summary.pending) pending"
                )
            }
        }
    }

    private static func members(_ summary: RolloutSummary) -> [(String, JSONValue)] {
        [
            ("rollout", .string(summary.rollout)), ("state", .string(summary.state.rawValue)),
            ("devices", .int(summary.devices)), ("pending", .int(summary.pending)),
        ]
    }
}
