import ArgumentParser
import CommandLineContract
import DFUFleet
import DFURollout
import DFUSupport
import Foundation

/// `dfu-update rollout retry NAME`: a new rollout of the devices a rollout that takes no more
/// claims left without an update, with its packages, inventory and rules. A rollout's results
/// are final, so the devices it failed are tried again under a new name.
struct RolloutRetryCommand: ContractCommand, OptionChecks {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract:
            "Make a new rollout of the devices a halted, cancelled or completed rollout did not update.",
        discussion: """
            The new rollout holds NAME's devices that did not end completed or up to date (failed, \
            aborted, or never started because NAME halted or was cancelled), in inventory order, \
            with NAME's packages, inventory, canary, failure limit and concurrency; gateways take it \
            up as any new rollout. NAME is left as it is. Refused while NAME is active or paused, \
            while a gateway still holds one of its devices, and while another active or paused \
            rollout (an earlier retry) has one of them without a result: two rollouts would \
            update the same device.
            """)

    @Argument(help: "The rollout whose devices are tried again.")
    var name: String

    @Option(
        name: .customLong("as"),
        help: ArgumentHelp(
            "The new rollout's name (default: NAME-retry-N, the first N free).", valueName: "new-name"))
    var newName: String?

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print JSON (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func checkOptions() throws {
        if let newName { try RolloutName.check(newName) }
    }

    func run() async throws {
        let made = try await withStore(store) { store in
            let retry = try await RolloutRetry.read(name, from: store)
            let spec = try retry.spec(named: try await chosenName(in: store))
            try await store.create(spec)
            return (spec, retry)
        }
        let (spec, retry) = made
        if json {
            Output.line(
                .object([
                    ("event", .string("created")), ("rollout", .string(spec.name)), ("from", .string(name)),
                    ("devices", .int(spec.devices.count)), ("failed", .int(retry.failed)),
                    ("packages", .int(spec.packages.count)),
                ]))
        } else {
            Output.line(
                "created rollout \(spec.name) from \(name): \(Plural.count(spec.devices.count, "device")) "
                    + "(\(retry.failed) failed or aborted, \(spec.devices.count - retry.failed) not started), "
                    + Plural.count(spec.packages.count, "package"))
        }
    }

    /// `--as`, else `NAME-retry-1` or the first `NAME-retry-N` the store does not have.
    private func chosenName(in store: any RolloutStore) async throws -> String {
        if let newName { return newName }
        let taken = Set(try await store.rollouts())
        return (1...).lazy.map { "\(name)-retry-\($0)" }.first { !taken.contains($0) }!
    }
}
