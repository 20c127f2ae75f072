import DFUFleet
import DFURollout
import Foundation
import XCTest

/// A state file is an embedded rollout store: what it refuses, and what the store shows.
final class FleetStateFileTests: XCTestCase {
    private func refusal(_ contents: Data) async throws -> String? {
        let url = try FleetFixtures.temporaryFolder(self).appendingPathComponent("state")
        try contents.write(to: url)
        do {
            _ = try await FleetStateFile(url: url, inventory: "v1")
            return nil
        } catch {
            return error.message.replacingOccurrences(of: url.path, with: "FILE")
        }
    }

    func testAFileThatIsNoStoreIsRefusedWithWhatToDo() async throws {
        let refusal = try await refusal(Data("device,package\n".utf8))
        XCTAssertEqual(
            refusal, "FILE: not a fleet state file; delete it to start afresh, or give another --state file")
    }

    func testAnEarlierJSONStateFileIsRefusedWithWhatToDo() async throws {
        let refusal = try await refusal(Data(#"  {"inventory": "v1", "devices": {}}"#.utf8))
        XCTAssertEqual(
            refusal,
            "FILE is a JSON state file of an earlier dfu-update, which this one does not read; "
                + "delete it to start afresh, or give another --state file")
    }

    func testAStoreWithAnotherRolloutIsAnotherInventorys() async throws {
        let url = try FleetFixtures.temporaryFolder(self).appendingPathComponent("rollouts.sqlite")
        let store = try EmbeddedRolloutStore(path: url.path)
        let package = RolloutPackage(name: "app", bytes: Data([1]))
        try await store.create(
            RolloutSpec(
                name: "spring", packages: [package],
                devices: [RolloutDevice(device: "C0:DE:00:00:00:00", packageSHA256: package.sha256)]))
        await store.close()
        do {
            _ = try await FleetStateFile(url: url, inventory: "v1")
            XCTFail("a store of another rollout was taken for the fleet's state")
        } catch {
            XCTAssertEqual(
                error.message,
                "\(url.path) records a rollout of another inventory; delete it, or give another --state file")
        }
    }
}
