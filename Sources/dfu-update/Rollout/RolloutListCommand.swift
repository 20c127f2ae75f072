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
        let statuses = try await withStore(store) { store in
            var statuses: [RolloutStatus] = []
            for name in try await store.rollouts() { statuses.append(try await store.status(of: name)) }
            return statuses
        }
        if json {
            Output.line(.object([("rollouts", .array(statuses.map { .object(Self.members($0)) }))]))
        } else if statuses.isEmpty {
            Output.line("the store has no rollouts: \(try store.location())")
        } else {
            for status in statuses {
                let pending = status.devices.count { $0.result == nil }
                Output.line(
                    "\(status.rollout)  \(status.state.rawValue)  \(Plural.count(status.devices.count, "device")), \(pending) pending"
                )
            }
        }
    }

    private static func members(_ status: RolloutStatus) -> [(String, JSONValue)] {
        [
            ("rollout", .string(status.rollout)), ("state", .string(status.state.rawValue)),
            ("devices", .int(status.devices.count)),
            ("pending", .int(status.devices.count { $0.result == nil })),
        ]
    }
}
