import ArgumentParser
import DFURollout

/// `dfu-update rollout pause|resume|cancel NAME`: the operator's word on a rollout.
protocol RolloutSteerCommand: ContractCommand {
    static var command: DFURollout.RolloutCommand { get }
    var options: RolloutTargetOptions { get }
}

extension RolloutSteerCommand {
    var json: Bool { options.json }
    var logging: LoggingOptions { options.logging }

    func run() async throws {
        let name = options.name
        let state = try await withStore(options.store) { try await $0.apply(Self.command, to: name) }
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

    @OptionGroup var options: RolloutTargetOptions
}

struct RolloutResumeCommand: RolloutSteerCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Let gateways claim the devices of a paused rollout again.")
    static let command = DFURollout.RolloutCommand.resume

    @OptionGroup var options: RolloutTargetOptions
}

struct RolloutCancelCommand: RolloutSteerCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "End a rollout: no new claims, and gateways abort the updates they hold.")
    static let command = DFURollout.RolloutCommand.cancel

    @OptionGroup var options: RolloutTargetOptions
}
