import DFURollout
import Foundation

/// How a state file is recognised and read back.
extension FleetStateFile {
    /// What every SQLite file begins with.
    private static let sqliteHeader = Data("SQLite format 3\0".utf8)

    /// Opens an existing file as a rollout store, or says why it is none.
    static func open(_ url: URL) throws(FleetInventoryError) -> EmbeddedRolloutStore {
        let head = (try? FileHandle(forReadingFrom: url).read(upToCount: sqliteHeader.count)) ?? nil
        guard head == sqliteHeader else {
            if let head, FleetInventory.firstSignificantByte(of: head) == UInt8(ascii: "{") {
                throw FleetInventoryError(
                    "\(url.path) is a JSON state file of an earlier dfu-update, which this one does not read; "
                        + "delete it to start afresh, or give another --state file")
            }
            throw FleetInventoryError(
                "\(url.path): not a fleet state file; delete it to start afresh, or give another --state file"
            )
        }
        do {
            return try EmbeddedRolloutStore(path: url.path)
        } catch {
            throw FleetInventoryError(
                "\(url.path): not a fleet state file (\(error)); delete it to start afresh, "
                    + "or give another --state file")
        }
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
