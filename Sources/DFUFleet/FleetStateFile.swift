import DFUSupport
import Foundation
import GATT
import NordicDFU

/// The devices a rollout has finished, kept in a file so that a run interrupted by Ctrl-C or a
/// reboot, started again, skips them (docs/fleet.md, "State file"). Rewritten atomically after
/// each device: a crash leaves the previous or the next version, never a torn one.
public final class FleetStateFile: Sendable {
    /// What the file remembers of a finished device.
    public struct Entry: Codable, Sendable, Equatable {
        /// `completed` or `skipped`.
        public var result: String
        public var package: String?
        public var versionAfter: String?

        enum CodingKeys: String, CodingKey {
            case result, package
            case versionAfter = "version_after"
        }
    }

    private struct Contents: Codable {
        var inventory: String
        var devices: [String: Entry]
    }

    public let url: URL
    private let contents: Locked<Contents>

    /// Opens the state of the rollout of the inventory whose identity (e.g. its SHA-256) is
    /// `inventory`; a missing file is an empty state. Throws when the file belongs to another
    /// inventory or cannot be read.
    public init(url: URL, inventory: String) throws(FleetInventoryError) {
        self.url = url
        guard FileManager.default.fileExists(atPath: url.path) else {
            contents = Locked(Contents(inventory: inventory, devices: [:]))
            return
        }
        let stored: Contents
        do {
            stored = try JSONDecoder().decode(Contents.self, from: Data(contentsOf: url))
        } catch {
            throw FleetInventoryError(
                "\(url.path): not a fleet state file (\(error)); delete it to start afresh")
        }
        guard stored.inventory == inventory else {
            throw FleetInventoryError(
                "\(url.path) records a rollout of another inventory; delete it, or give another --state file")
        }
        contents = Locked(stored)
    }

    /// The entry of a device finished in an earlier run, if any.
    public func entry(for device: String) -> Entry? { contents.withLock { $0.devices[device] } }

    /// Records a device that completed or was up to date, and rewrites the file (under the lock,
    /// so that devices finishing together write one after the other).
    func record(_ report: FleetDeviceReport) throws {
        guard report.result == .completed || report.result == .skipped else { return }
        try contents.withLock { contents in
            contents.devices[report.device] = Entry(
                result: report.result.rawValue, package: report.package, versionAfter: report.versionAfter)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try AtomicFile.write(try encoder.encode(contents), to: url)
        }
    }
}
