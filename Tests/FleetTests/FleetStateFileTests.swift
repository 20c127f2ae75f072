import DFUFleet
import DFUSupport
import FirmwareUpdate
import Foundation
import SimulatedFleet
import XCTest

@testable import DFURollout

/// A state file is an embedded rollout store: what it refuses, and what the store shows.
final class FleetStateFileTests: XCTestCase {
    private func refusal(_ contents: Data) async throws -> String? {
        let url = try FleetFixtures.temporaryFolder(self).appendingPathComponent("state")
        try contents.write(to: url)
        return await refusal(opening: url)?.replacingOccurrences(of: url.path, with: "FILE")
    }

    /// Why the state file at `url` is refused for inventory `v1`; nil when it is opened.
    private func refusal(opening url: URL) async -> String? {
        do {
            _ = try await FleetStateFile(url: url, inventory: "v1")
            return nil
        } catch {
            return error.message
        }
    }

    /// A file given as `--state` by mistake (an inventory, a fleet's report) is someone's: the
    /// refusal says to give another file, never to delete it.
    func testAFileThatIsNoStateFileIsRefusedWithoutAdviceToDeleteIt() async throws {
        let report = #"{"devices": [{"device": "C0:DE:00:00:00:01", "result": "completed"}], "summary": {}}"#
        for contents in ["device,package\n", report, "[]"] {
            let refusal = try await refusal(Data(contents.utf8))
            XCTAssertEqual(
                refusal,
                "FILE is not a fleet's state file (the fleet keeps its state in an SQLite file it makes "
                    + "itself); it is left as it was; give another --state file (a path where no file is "
                    + "yet starts a new one)", contents)
        }
    }

    func testAnotherProgramsDatabaseIsRefusedAndLeftAsItWas() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let url = folder.appendingPathComponent("notes.db")
        let database = try SQLiteConnection(path: url.path)
        try database.execute("CREATE TABLE notes (body TEXT)")
        database.close()
        let before = try Data(contentsOf: url)
        let refused = await refusal(opening: url)
        XCTAssertEqual(
            refused,
            "\(url.path) is an SQLite database dfu-update did not make, not a fleet's state file; it is "
                + "left as it was; give another --state file (a path where no file is yet starts a new one)")
        XCTAssertEqual(try Data(contentsOf: url), before)
    }

    func testAnEarlierJSONStateFileIsRefusedWithWhatToDo() async throws {
        let refusal = try await refusal(Data(#"  {"inventory": "v1", "devices": {}}"#.utf8))
        XCTAssertEqual(
            refusal,
            "FILE is a JSON state file of an earlier dfu-update, which this one does not read; "
                + "delete it to start afresh, or give another --state file (a path where no file is yet "
                + "starts a new one)")
    }

    /// A rollout store (`rollout create`'s, with packages) given as the state file is refused
    /// without the advice to delete it: its rollouts are for gateways.
    func testARolloutStoreIsNoStateFile() async throws {
        let package = RolloutPackage(name: "app", bytes: Data([1]))
        let (url, refused) = try await refusal(
            ofStoreWith: RolloutSpec(
                name: "spring", packages: [package],
                devices: [RolloutDevice(device: "C0:DE:00:00:00:00", packageSHA256: package.sha256)]))
        XCTAssertEqual(
            refused,
            "\(url.path) is a rollout store (rollout spring), not a fleet's state file; give another "
                + "--state file (gateways update its rollouts: `dfu-update gateway --store \(url.path)`)")
    }

    /// The state file of another inventory (a rollout without packages) may be deleted.
    func testAStateFileOfAnotherInventoryIsRefused() async throws {
        let (url, refused) = try await refusal(
            ofStoreWith: RolloutSpec(
                name: "crc32:00000001:10", packages: [],
                devices: [RolloutDevice(device: "C0:DE:00:00:00:00", packageSHA256: nil)],
                inventory: RolloutInventory(bytes: Data(), folder: "")))
        XCTAssertEqual(
            refused,
            "\(url.path) records a rollout of another inventory; delete it, or give another --state file")
    }

    /// A store holding the rollout `spec` alone, and why it is refused as the state file.
    private func refusal(ofStoreWith spec: RolloutSpec) async throws -> (URL, String?) {
        let url = try FleetFixtures.temporaryFolder(self).appendingPathComponent("rollouts.sqlite")
        let store = try EmbeddedRolloutStore(path: url.path)
        try await store.create(spec)
        await store.close()
        return (url, await refusal(opening: url))
    }

    /// The state file of a fleet of `devices` as the fleet leaves it after its first write
    /// (rollout `v1`, no packages, the empty inventory of a fleet made without one), then steered as `rollout pause`/`cancel --store FILE v1` do.
    private func steeredStateFile(
        devices: [String], openedBefore: Bool, steer: RolloutCommand
    ) async throws
        -> (url: URL, state: FleetStateFile?)
    {
        let url = try FleetFixtures.temporaryFolder(self).appendingPathComponent("state.sqlite")
        let store = try EmbeddedRolloutStore(path: url.path)
        try await store.create(
            RolloutSpec(
                name: "v1", packages: [],
                devices: devices.map { RolloutDevice(device: $0, packageSHA256: nil) },
                inventory: RolloutInventory(bytes: Data(), folder: "")))
        let state = openedBefore ? try await FleetStateFile(url: url, inventory: "v1") : nil
        try await store.apply(steer, to: "v1")
        await store.close()
        return (url, state)
    }

    func testAFleetResumedOnACancelledStateFileIsRefusedWithWhatToDo() async throws {
        let (refused, path) = try await refusalOfAFleetResumed(after: .cancel)
        XCTAssertEqual(
            refused,
            "\(path): its rollout was cancelled (`rollout cancel`) and is not resumed; "
                + "`rollout status v1 --store \(path)` shows what it recorded; "
                + "delete it to start afresh, or give another --state file")
    }

    func testAFleetResumedOnAPausedStateFileIsRefusedWithWhatToDo() async throws {
        let (refused, path) = try await refusalOfAFleetResumed(after: .pause)
        XCTAssertEqual(
            refused,
            "\(path): its rollout is paused (`rollout pause`); "
                + "`rollout resume v1 --store \(path)` lets the fleet go on")
    }

    /// Why a fleet started on a state file steered by `steer` since its last run is refused,
    /// and the file's path.
    private func refusalOfAFleetResumed(after steer: RolloutCommand) async throws -> (String?, String) {
        let (url, _) = try await steeredStateFile(
            devices: ["C0:DE:00:00:00:00"], openedBefore: false, steer: steer)
        return (await refusal(opening: url), url.path)
    }

    func testARunningFleetWhoseStateFileIsCancelledHaltsOnce() async throws {
        try await assertARunningFleetHaltsOnce(steer: .cancel) { url in
            "\(url.path): its rollout was cancelled (`rollout cancel`); no more updates are started"
        }
    }

    func testARunningFleetWhoseStateFileIsPausedHaltsOnce() async throws {
        try await assertARunningFleetHaltsOnce(steer: .pause) { url in
            "\(url.path): its rollout was paused (`rollout pause`); no more updates are started; "
                + "`rollout resume v1 --store \(url.path)`, then run the fleet again to go on"
        }
    }

    /// A fleet of four devices, one at a time, whose state file's rollout is steered by `steer`
    /// after the fleet opened it: the first device's write finds it, the fleet halts once with
    /// `reason` and starts no other device.
    private func assertARunningFleetHaltsOnce(
        steer: RolloutCommand, reason: (URL) -> String
    ) async throws {
        let configurations = (0..<4).map { FleetFixtures.device($0, kind: .secureApp, firmware: "1.0.0") }
        let devices = configurations.map(\.address.description)
        let (url, state) = try await steeredStateFile(devices: devices, openedBefore: true, steer: steer)
        let (adapter, _) = try FleetAdapter.simulated(configurations)
        let fleet = try Fleet(
            inventory: try FleetInventory(
                defaults: .init(package: "app"), devices: devices.map { FleetDeviceEntry(device: $0) }),
            packages: ["app": FirmwarePackage(try FleetFixtures.secure(version: 20000, seed: 6))],
            adapters: [adapter], options: FleetFixtures.options(concurrency: 1), state: state)
        let halts = Locked([String]())
        let errors = Locked([String]())
        let report = await fleet.run { event in
            switch event {
            case .halted(let reason): halts.withLock { $0.append(reason) }
            case .device(_, .log(.error, let line)): errors.withLock { $0.append(line) }
            default: break
            }
        }
        XCTAssertEqual(halts.withLock { $0 }, [reason(url)])
        XCTAssertEqual(errors.withLock { $0 }, [], "the stop is told once, not as every device's error")
        XCTAssertEqual(report.devices.map(\.result), [.completed, .notStarted, .notStarted, .notStarted])
        XCTAssertEqual(report.devices.dropFirst().map(\.reason), Array(repeating: reason(url), count: 3))
    }
}
