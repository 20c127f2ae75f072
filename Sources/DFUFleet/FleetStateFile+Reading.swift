import DFURollout
import Foundation

/// How a state file is recognised and read back.
extension FleetStateFile {
    /// What every SQLite file begins with.
    private static let sqliteHeader = Data("SQLite format 3\0".utf8)

    /// Opens an existing file as a rollout store, or says why it is none. Only a file that is a
    /// fleet's state (damaged, or kept by an earlier dfu-update) is said to be deletable: any
    /// other file was given by mistake and is someone's.
    static func open(_ url: URL) throws(FleetInventoryError) -> EmbeddedRolloutStore {
        let other = "give another --state file (a path where no file is yet starts a new one)"
        guard (try? FileHandle(forReadingFrom: url).read(upToCount: sqliteHeader.count)) == sqliteHeader
        else {
            if isEarlierJSONStateFile(url) {
                throw FleetInventoryError(
                    "\(url.path) is a JSON state file of an earlier dfu-update, which this one does not read; "
                        + "delete it to start afresh, or \(other)")
            }
            throw FleetInventoryError(
                "\(url.path) is not a fleet's state file (the fleet keeps its state in an SQLite file "
                    + "it makes itself); it is left as it was; \(other)")
        }
        do {
            return try EmbeddedRolloutStore(path: url.path)
        } catch RolloutStoreError.storage(let failure) where failure.kind == .notAStore {
            throw FleetInventoryError(
                "\(url.path) is an SQLite database dfu-update did not make, not a fleet's state file; "
                    + "it is left as it was; \(other)")
        } catch {
            throw FleetInventoryError(
                "\(url.path): not readable as a fleet state file (\(error)); "
                    + "if it is damaged, delete it to start afresh; or \(other)")
        }
    }

    /// Whether the file is what dfu-update before its SQLite state files kept: a JSON object
    /// with the inventory's identity and the finished devices.
    private static func isEarlierJSONStateFile(_ url: URL) -> Bool {
        let object = (try? Data(contentsOf: url)).flatMap { try? JSONSerialization.jsonObject(with: $0) }
        guard let members = object as? [String: Any] else { return false }
        return members["inventory"] is String && members["devices"] is [String: Any]
    }

    /// Why a store whose rollouts are not this inventory's is refused, and what to do: a state
    /// file of another inventory may be deleted, while a store with packages is a rollout store
    /// (`rollout create` made it, for gateways), which the fleet must leave alone.
    static func notThisInventorys(_ url: URL, _ store: EmbeddedRolloutStore, rollouts: [String]) async throws
        -> String
    {
        for rollout in rollouts where try await !store.packages(of: rollout).isEmpty {
            return "\(url.path) is a rollout store (rollout \(rollout)), not a fleet's state file; "
                + "give another --state file (gateways update its rollouts: "
                + "`dfu-update gateway --store \(url.path)`)"
        }
        return "\(url.path) records a rollout of another inventory; delete it, or give another --state file"
    }

    /// A device the store has as `completed` or `skipped`, with the package and version its
    /// report names.
    static func entry(_ device: DeviceStatus) -> (String, Entry)? {
        guard let result = device.result, result == .completed || result == .skipped else { return nil }
        let report =
            device.report.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        let entry = Entry(
            result: result.rawValue, package: report["package"] as? String,
            versionAfter: report["version_after"] as? String)
        return (device.device, entry)
    }

    /// The members of the contract's device report a resumed run needs (`device`, `result`,
    /// `package`, `version_after`), for a state file whose maker gives no fuller report.
    @Sendable public static func essentials(_ report: FleetDeviceReport) -> Data? {
        let members: [String: Any] = [
            "device": report.device, "result": report.result.rawValue,
            "package": report.package ?? NSNull(), "version_after": report.versionAfter ?? NSNull(),
        ]
        return try? JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])
    }
}
