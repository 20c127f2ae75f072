import ArgumentParser
import DFURollout
import DFURolloutPostgres
import DFUSupport
import Foundation

/// `dfu-bench store`: what a rollout's size costs the rollout store itself (docs/rollout.md,
/// "Benchmark"), timed around the store's calls alone: no inventory to read, no output to write.
struct StoreBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "The rollout store's create, status and first page for a small and a large rollout.",
        discussion: """
            For each store, a rollout of --small devices and one of --large, each device with an \
            inventory entry of the size `rollout create` stores: the seconds of `create`, of \
            `status` (every device) and of `listing` (the first page of 100, as `rollout serve` \
            shows it), the median of --runs. The embedded store is a new file per run; PostgreSQL \
            (with --postgres) is one database, migrated first, a new rollout per run. Prints one \
            JSON line per store and size, then one per store with large ÷ small.
            """)

    @Option(help: "Devices in the small rollout.")
    var small = 1_000

    @Option(help: "Devices in the large rollout.")
    var large = 100_000

    @Option(
        help: """
            A PostgreSQL database to measure as well (postgres://USER@HOST:PORT/DATABASE), its \
            password in DFU_UPDATE_STORE_PASSWORD; none: the embedded store only.
            """)
    var postgres: String?

    @Option(help: "Runs of each size; the median is printed.")
    var runs = 3

    /// One rollout's calls, in seconds.
    struct Measured {
        var create: Double
        var status: Double
        var firstPage: Double
    }

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-bench-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var stores: [(kind: String, open: () async throws -> any RolloutStore)] = [
            (
                "embedded",
                { try EmbeddedRolloutStore(path: folder.appendingPathComponent("\(UUID()).sqlite").path) }
            )
        ]
        if let postgres {
            let location = try PostgresStoreLocation(url: postgres)
            let password = ProcessInfo.processInfo.environment["DFU_UPDATE_STORE_PASSWORD"]
            stores.append(
                (
                    "postgres",
                    {
                        try await PostgresRolloutStore.connect(
                            to: location, password: password, migrate: true)
                    }
                ))
        }
        for (kind, open) in stores {
            var medians: [Measured] = []
            for size in [small, large] {
                var runs: [Measured] = []
                for _ in 0..<max(1, self.runs) {
                    let store = try await open()
                    runs.append(try await Self.measure(store, devices: size))
                    try await store.close()
                }
                let median = Measured(
                    create: runs.map(\.create).median!, status: runs.map(\.status).median!,
                    firstPage: runs.map(\.firstPage).median!)
                medians.append(median)
                print(
                    "{\"benchmark\":\"store\",\"store\":\"\(kind)\",\"devices\":\(size),\"runs\":\(runs.count),"
                        + "\"create_seconds\":\(figure(median.create)),"
                        + "\"status_seconds\":\(figure(median.status)),"
                        + "\"first_page_seconds\":\(figure(median.firstPage))}")
            }
            let (smallRun, largeRun) = (medians[0], medians[1])
            print(
                "{\"benchmark\":\"store_ratios\",\"store\":\"\(kind)\",\"large_over_small\":{"
                    + "\"create\":\(figure(largeRun.create / smallRun.create)),"
                    + "\"status\":\(figure(largeRun.status / smallRun.status)),"
                    + "\"first_page\":\(figure(largeRun.firstPage / smallRun.firstPage))}}")
        }
    }

    private static func measure(_ store: any RolloutStore, devices: Int) async throws -> Measured {
        let spec = spec(devices: devices)
        let create = try await seconds { try await store.create(spec) }
        let status = try await seconds { _ = try await store.status(of: spec.name) }
        let firstPage = try await seconds { _ = try await store.listing(of: spec.name, DeviceListingQuery()) }
        return Measured(create: create, status: status, firstPage: firstPage)
    }

    /// A rollout as `rollout create` stores an inventory of `devices` addresses with a default
    /// package: each device's own member, and once the frame of the inventory's defaults.
    static func spec(devices: Int) -> RolloutSpec {
        let package = RolloutPackage(name: "app.zip", bytes: Data(repeating: 0xA5, count: 64 * 1024))
        let rollout = "bench-\(UUID().uuidString.prefix(8))"
        let members = (0..<devices).map { index in
            let address = String(
                format: "C0:DF:%02X:%02X:%02X:00", (index >> 16) & 0xFF, (index >> 8) & 0xFF, index & 0xFF)
            let entry = #"{"device":"\#(address)"}"#
            return RolloutDevice(device: address, packageSHA256: nil, inventoryEntry: Data(entry.utf8))
        }
        return RolloutSpec(
            name: rollout, packages: [package], devices: members,
            inventory: RolloutInventory(
                bytes: Data(#"{"defaults":{"package":"app.zip"}}"#.utf8), folder: "/srv",
                entryFrame: InventoryEntryFrame(
                    prefix: Data(#"{"defaults":{"package":"app.zip"},"devices":["#.utf8),
                    suffix: Data("]}".utf8))))
    }

    private static func seconds(_ body: () async throws -> Void) async throws -> Double {
        let clock = ContinuousClock()
        let started = clock.now
        try await body()
        return (clock.now - started).seconds
    }
}
