import ArgumentParser
import DFURollout

/// `dfu-update rollout pause|resume|cancel NAME`: the operator's word on a rollout.
protocol RolloutSteerCommand: ContractCommand {
    static var command: DFURollout.RolloutCommand { get }
    var name: String { get }
    var store: StoreOptions { get }
}

extension RolloutSteerCommand {
    func run() async throws {
        let state = try await withStore(store) { try await $0.apply(Self.command, to: name) }
        if json {
            Output.line(.object([("rollout", .string(name)), ("state", .string(state.rawValue))]))
        } else {
            Output.line("rollout \(name) is \(state.rawValue)")
        }
    }
}

struct RolloutPauseCommand: RolloutSteerCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Stop new claims on every gateway (within one heartbeat); updates in progress go on.")
    static let command = DFURollout.RolloutCommand.pause

    @Argument(help: "The rollout's name.") var name: String
    @OptionGroup var store: StoreOptions
    @Flag(help: "Print JSON (docs/cli-contract.md).") var json = false
    @OptionGroup var logging: LoggingOptions
}

struct RolloutResumeCommand: RolloutSteerCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Let gateways claim the devices of a paused rollout again.")
    static let command = DFURollout.RolloutCommand.resume

    @Argument(help: "The rollout's name.") var name: String
    @OptionGroup var store: StoreOptions
    @Flag(help: "Print JSON (docs/cli-contract.md).") var json = false
    @OptionGroup var logging: LoggingOptions
}

struct RolloutCancelCommand: RolloutSteerCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "End a rollout: no new claims, and gateways abort the updates they hold.")
    static let command = DFURollout.RolloutCommand.cancel

    @Argument(help: "The rollout's name.") var name: String
    @OptionGroup var store: StoreOptions
    @Flag(help: "Print JSON (docs/cli-contract.md).") var json = false
    @OptionGroup var logging: LoggingOptions
}
