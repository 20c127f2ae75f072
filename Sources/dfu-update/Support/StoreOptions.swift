import ArgumentParser
import DFURollout
import DFURolloutPostgres
import Foundation

/// `--store`: where the rollouts are (docs/rollout.md). A `postgres://` URL is a PostgreSQL
/// store, anything else the path of an embedded store's file; without the option,
/// `DFU_UPDATE_STORE`, else the embedded store in the user's state folder.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The rollout store: postgres://USER@HOST[:PORT]/DB[?sslmode=…] or a file (default: DFU_UPDATE_STORE, else an embedded store under ~/.local/state/dfu-update).",
            valueName: "url"))
    var store: String?

    /// The store named by the option, the environment or the default.
    var location: String {
        let environment = ProcessInfo.processInfo.environment
        if let store = store ?? environment["DFU_UPDATE_STORE"], !store.isEmpty { return store }
        let state = environment["XDG_STATE_HOME"] ?? "\(environment["HOME"] ?? ".")/.local/state"
        return "\(state)/dfu-update/rollouts.sqlite"
    }

    /// Opens the store; with `migrate`, a PostgreSQL schema is brought up to date first.
    func open(migrate: Bool = false) async throws -> any RolloutStore {
        let location = location
        guard location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") else {
            let folder = URL(fileURLWithPath: location).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return try EmbeddedRolloutStore(path: location)
        }
        do {
            let postgres = try PostgresStoreLocation(url: location)
            return try await PostgresRolloutStore.connect(
                to: postgres, password: try PostgresPassword.find(for: postgres), migrate: migrate)
        } catch let error as PostgresStoreLocationError {
            throw CommandFailure(usage: error.description)
        }
    }
}

/// Runs `body` with the store, and closes it however `body` ends.
func withStore<T>(
    _ options: StoreOptions, migrate: Bool = false, _ body: (any RolloutStore) async throws -> T
)
    async throws -> T
{
    let store = try await options.open(migrate: migrate)
    do {
        let result = try await body(store)
        try await store.close()
        return result
    } catch {
        try? await store.close()
        throw error
    }
}
