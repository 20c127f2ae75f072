import ArgumentParser
import DFURollout
import DFURolloutPostgres
import Foundation
import Logging

/// `--store`: where the rollouts are (docs/rollout.md). A `postgres://` URL is a PostgreSQL
/// store, a file the path of an embedded store; without the option, `DFU_UPDATE_STORE`, else the
/// embedded store in the user's state folder. Anything that is neither (a mistyped scheme, a
/// missing file without a store's extension) is a usage error, never a new store.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The rollout store: postgres://USER@HOST[:PORT]/DB[?sslmode=…], or a file (an existing one, file:PATH, or a new one ending in .sqlite, .sqlite3 or .db); default: DFU_UPDATE_STORE, else an embedded store under ~/.local/state/dfu-update.",
            valueName: "url"))
    var store: String?

    /// Where the store's name comes from, for messages.
    private var origin: String {
        if store != nil { return "--store" }
        if ProcessInfo.processInfo.environment["DFU_UPDATE_STORE"] != nil { return "DFU_UPDATE_STORE" }
        return "the default store"
    }

    /// The store named by the option, the environment or the default, checked.
    func location() throws -> StoreLocation {
        let environment = ProcessInfo.processInfo.environment
        if let store { return try StoreLocation(store, from: "--store") }
        if let store = environment["DFU_UPDATE_STORE"] {
            return try StoreLocation(store, from: "DFU_UPDATE_STORE")
        }
        let state = environment["XDG_STATE_HOME"] ?? "\(environment["HOME"] ?? ".")/.local/state"
        return .file("\(state)/dfu-update/rollouts.sqlite")
    }

    /// Whether the store is an embedded one whose file does not exist yet.
    func isMissingFile() throws -> Bool {
        guard case .file(let path) = try location() else { return false }
        return !FileManager.default.fileExists(atPath: path)
    }

    /// Throws when the store is an embedded one whose file does not exist: a command that does
    /// not make one calls it before anything else.
    func requireStore() throws {
        guard case .file(let path) = try location(), !FileManager.default.fileExists(atPath: path) else {
            return
        }
        throw CommandFailure(
            errorClass: "no_such_store",
            message: "no rollout store at \(path) (\(origin)): `rollout create` makes one; check the path",
            exitCode: .usage)
    }

    /// Opens the store, and logs which one (at info: `--verbose`); with `migrate`, a PostgreSQL
    /// schema is brought up to date first. An embedded store's file is made only when `creating`
    /// (`rollout create`, `rollout migrate`): anywhere else a missing file is a mistyped path, and
    /// a new empty store would leave a gateway or a page waiting on nothing.
    func open(migrate: Bool = false, creating: Bool = false) async throws -> any RolloutStore {
        let logger = Logger(label: "dfu-update.rollout-store")
        switch try location() {
        case .file(let path):
            if !creating { try requireStore() }
            logger.info("rollout store: the embedded store \(path)")
            try StoreFolder.make(for: path, origin: origin)
            return try EmbeddedRolloutStore(path: path)
        case .postgres(let postgres):
            let password: PostgresPassword
            do {
                password = try PostgresPassword.find(for: postgres)
            } catch let error as PostgresStoreLocationError {
                throw CommandFailure(usage: error.description)
            }
            logger.info("rollout store: \(postgres.description) (the password: \(password.source))")
            return try await PostgresRolloutStore.connect(
                to: postgres, password: password, migrate: migrate, logger: logger)
        }
    }
}

/// A store argument, checked: a PostgreSQL URL or the path of an embedded store's file.
enum StoreLocation: CustomStringConvertible {
    case postgres(PostgresStoreLocation)
    case file(String)

    static let extensions = ["sqlite", "sqlite3", "db"]

    /// `origin` (`--store`, `DFU_UPDATE_STORE`) is named in a usage error.
    init(_ text: String, from origin: String) throws {
        let accepted =
            "give postgres://USER@HOST[:PORT]/DB (or postgresql://), file:PATH, an existing store file, "
            + "or a new file ending in .sqlite, .sqlite3 or .db"
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            do {
                self = .postgres(try PostgresStoreLocation(url: text))
            } catch let error as PostgresStoreLocationError {
                throw CommandFailure(usage: "\(origin): \(error.description)")
            }
            return
        }
        if text.hasPrefix("file:") {
            let path = URL(string: text).flatMap { $0.isFileURL && !$0.path.isEmpty ? $0.path : nil }
            guard let path else {
                throw CommandFailure(usage: "\(origin) \(text) names no file; \(accepted)")
            }
            self = .file(path)
            return
        }
        guard !text.isEmpty else { throw CommandFailure(usage: "\(origin) is empty; \(accepted)") }
        if let scheme = text.range(of: #"^[A-Za-z][A-Za-z0-9+.-]*:"#, options: .regularExpression) {
            throw CommandFailure(
                usage: "\(origin) \(text): \(text[scheme]) is not a store's scheme; \(accepted)")
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: text, isDirectory: &isFolder) {
            guard !isFolder.boolValue else {
                throw CommandFailure(usage: "\(origin) \(text) is a folder, not a store file; \(accepted)")
            }
        } else if !Self.extensions.contains(URL(fileURLWithPath: text).pathExtension.lowercased()) {
            throw CommandFailure(
                usage: "\(origin) \(text) does not exist and is not named as a store file; \(accepted)")
        }
        self = .file(text)
    }

    /// The store for people and logs (never a password: URLs with one are refused).
    var description: String {
        switch self {
        case .postgres(let location): location.description
        case .file(let path): path
        }
    }
}

/// Runs `body` with the store, and closes it however `body` ends.
func withStore<T>(
    _ options: StoreOptions, migrate: Bool = false, creating: Bool = false,
    _ body: (any RolloutStore) async throws -> T
)
    async throws -> T
{
    let store = try await options.open(migrate: migrate, creating: creating)
    do {
        let result = try await body(store)
        try await store.close()
        return result
    } catch {
        try? await store.close()
        throw error
    }
}
