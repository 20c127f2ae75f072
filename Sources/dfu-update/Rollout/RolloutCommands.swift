import ArgumentParser

/// `dfu-update rollout`: one rollout, kept in a store that many gateways share (docs/rollout.md).
struct RolloutCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollout",
        abstract: "Create, watch and steer a rollout that gateways share through a store.",
        discussion: """
            A rollout is an inventory's devices and packages kept in a store: an embedded file \
            (the default, one gateway) or PostgreSQL (many gateways). Gateways claim the devices \
            they can reach and report each result; these commands are the operator's. \
            docs/rollout.md describes the store, its roles and its semantics.

            Examples:
              dfu-update rollout migrate --store postgres://owner@db/fleet
              dfu-update rollout create spring fleet.json --store postgres://alice@db/fleet --canary 5
              dfu-update rollout list --store postgres://alice@db/fleet
              dfu-update rollout status spring --store postgres://alice@db/fleet --json
              dfu-update rollout pause spring --store postgres://alice@db/fleet
              dfu-update rollout retry spring --store postgres://alice@db/fleet
              dfu-update rollout serve --store postgres://alice@db/fleet
            """,
        subcommands: [
            RolloutCreateCommand.self, RolloutListCommand.self, RolloutStatusCommand.self,
            RolloutPauseCommand.self,
            RolloutResumeCommand.self, RolloutCancelCommand.self, RolloutRetryCommand.self,
            RolloutMigrateCommand.self,
            RolloutServeCommand.self,
        ])
}

/// `dfu-update rollout migrate`: brings a PostgreSQL store's schema and roles up to date.
struct RolloutMigrateCommand: ContractCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or update a PostgreSQL store's tables and roles (as the database's owner).",
        discussion: """
            Applies the schema steps the database lacks and creates the roles dfu_rollout_operator \
            and dfu_rollout_gateway (docs/rollout.md, "Roles"). An embedded store needs no migrate: \
            it updates itself when opened.
            """)

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print JSON (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let location = try store.location()
        try await withStore(store, migrate: true, creating: true) { _ in }
        if json {
            Output.line(.object([("event", .string("migrated")), ("store", .string(location.description))]))
        } else {
            Output.line("the store's schema is up to date: \(location)")
        }
    }
}
