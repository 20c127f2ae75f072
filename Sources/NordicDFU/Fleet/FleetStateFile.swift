import Foundation
import GATT

/// The devices a rollout has finished, kept in a file so that a run interrupted by Ctrl-C or a
/// reboot, started again, skips them (docs/fleet.md, "Resuming"). Rewritten atomically after
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
            throw FleetInventoryError("\(url.path): not a fleet state file (\(error)); delete it to start afresh")
        }
        guard stored.inventory == inventory else {
            throw FleetInventoryError(
                "\(url.path) records a rollout of another inventory; delete it, or give another --state file")
        }
        contents = Locked(stored)
    }

    /// The entry of a device finished in an earlier run, if any.
    public func entry(for device: String) -> Entry? { contents.withLock { $0.devices[device] } }

    /// Records a device that completed or was up to date, and rewrites the file.
    func record(_ report: FleetDeviceReport) throws {
        guard report.result == .completed || report.result == .skipped else { return }
        let data = try contents.withLock { contents in
            contents.devices[report.device] = Entry(
                result: report.result.rawValue, package: report.package, versionAfter: report.versionAfter)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            return try encoder.encode(contents)
        }
        try Self.writeAtomically(data, to: url)
    }

    /// Writes a temporary file beside `url`, flushes it to disk, and renames it over `url`.
    static func writeAtomically(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        let handle = try FileHandle(forWritingTo: temporary)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
    }
}
