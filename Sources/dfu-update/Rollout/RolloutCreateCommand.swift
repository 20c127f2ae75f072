import ArgumentParser
import CommandLineContract
import DFUFleet
import DFURollout
import DFUSupport
import Foundation
import GATT
import SimulatorCommandLine

/// `dfu-update rollout create NAME INVENTORY`: puts an inventory's devices and its packages' bytes
/// into the store, as a new active rollout.
struct RolloutCreateCommand: ContractCommand, OptionChecks {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a rollout from an inventory; its packages' bytes go into the store.",
        discussion: """
            INVENTORY is read as `fleet` reads it (JSON or CSV, packages and rules, paths relative \
            to it) and every package is checked before anything is stored.
            """)

    @Argument(help: "The rollout's name, unique in the store.")
    var name: String

    @Argument(help: "The inventory: JSON or CSV (docs/cli-contract.md, \"Fleet inventory\").")
    var inventory: String

    @OptionGroup var store: StoreOptions

    @OptionGroup var safety: RolloutSafetyOptions

    @Option(
        parsing: .unconditional, help: "The most devices one gateway updates at once, 1…1000 (default: 4).",
        transform: { try Ranged.integer($0, in: 1...1000) })
    var concurrency = 4

    @Flag(help: "Print JSON (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func checkOptions() throws { try RolloutName.check(name) }

    func run() async throws {
        _ = try store.location()  // a mistyped store is a usage error before the inventory is read
        let spec = try makeSpec()
        try await withStore(store, creating: true) { try await $0.create(spec) }
        if json {
            Output.line(
                .object([
                    ("event", .string("created")), ("rollout", .string(name)),
                    ("devices", .int(spec.devices.count)),
                    ("packages", .int(spec.packages.count)),
                ]))
        } else {
            Output.line(
                "created rollout \(name): \(Plural.count(spec.devices.count, "device")), \(Plural.count(spec.packages.count, "package"))"
            )
        }
    }

    /// The inventory and its packages, read and checked as `fleet` does.
    private func makeSpec() throws -> RolloutSpec {
        let url = URL(fileURLWithPath: inventory)
        let inventory = try FleetSetup.inventory(at: inventory)
        _ = try FleetSetup.packages(inventory.packagePaths)
        let packages = try inventory.packagePaths.map {
            RolloutPackage(name: $0, bytes: try Data(contentsOf: URL(fileURLWithPath: $0)))
        }
        let digests = Dictionary(uniqueKeysWithValues: packages.map { ($0.name, $0.sha256) })
        let bytes = try Data(contentsOf: url)
        let folder = url.deletingLastPathComponent().standardizedFileURL.path
        // each device keeps its entry alone, and the rollout the frame that makes it a file: a
        // gateway reads that instead of the whole inventory
        let index = try FleetSetup.usage {
            try FleetInventoryIndex(data: bytes, folder: URL(fileURLWithPath: folder))
        }
        let devices = try RolloutInventoryDevices.devices(
            of: inventory, index: index, digests: digests, path: url.path)
        return RolloutSpec(
            name: name, packages: packages, devices: devices, canary: safety.canary,
            maxFailures: safety.maxFailures,
            concurrency: concurrency,
            inventory: RolloutInventory(bytes: bytes, folder: folder, entryFrame: index.frame))
    }
}
