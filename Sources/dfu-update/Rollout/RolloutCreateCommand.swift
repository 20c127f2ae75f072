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

    func checkOptions() throws {
        if name.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("a rollout's name cannot be empty")
        }
        // the name is typed again for status, pause and cancel, and printed one per line
        if name.trimmingCharacters(in: .whitespaces) != name {
            throw ValidationError("the rollout name '\(name)' has spaces around it; give it without them")
        }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ValidationError(
                "the rollout name \(name.debugDescription) holds a control character (a line break, a tab); give a name without one"
            )
        }
    }

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
        // A device's own package, or the default when no rule could choose another. An address is
        // stored as BlueZ prints it (upper case), which is how gateways ask for the devices they see.
        var devices: [RolloutDevice] = []
        for (number, entry) in inventory.devices.enumerated() {
            let package = entry.package ?? (inventory.rules.isEmpty ? inventory.defaults.package : nil)
            // without rules nothing could give it one later: every gateway would fail it
            if package == nil, inventory.rules.isEmpty {
                throw CommandFailure(
                    usage:
                        "\(url.path): device \(number + 1) (\(entry.device)) has no package, and the inventory has "
                        + "no rules and no default package; give the entry a \"package\" or the inventory "
                        + "\"defaults\": {\"package\": …} (docs/fleet.md, \"Rules\")")
            }
            devices.append(
                RolloutDevice(
                    device: entry.identifier.description, packageSHA256: package.flatMap { digests[$0] },
                    inventoryEntry: index.entry(of: entry.identifier)))
        }
        return RolloutSpec(
            name: name, packages: packages, devices: devices, canary: safety.canary,
            maxFailures: safety.maxFailures,
            concurrency: concurrency,
            inventory: RolloutInventory(bytes: bytes, folder: folder, entryFrame: index.frame))
    }
}
