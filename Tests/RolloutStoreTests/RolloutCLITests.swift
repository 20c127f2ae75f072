import DFURollout
import Foundation
import RolloutStoreTesting
import TestSupport
import XCTest

/// `dfu-update rollout` on an embedded store: create, status, pause, resume, cancel, and the
/// contract's errors.
final class RolloutCLITests: XCTestCase {
    func testCreateStatusAndSteer() async throws {
        let folder = try RolloutCLI.temporaryFolder(self)
        let inventory = try RolloutCLI.inventory(devices: 3, in: folder).path
        let store = folder.appendingPathComponent("state/rollouts.sqlite").path

        let created = try await RolloutCLI.run([
            "create", "spring", inventory, "--store", store, "--canary", "1",
        ])
        XCTAssertEqual(created.status, 0)
        XCTAssertEqual(try created.object.int("devices"), 3)

        // DFU_UPDATE_STORE stands for --store.
        let status = try await RolloutCLI.run(["status", "spring"], environment: ["DFU_UPDATE_STORE": store])
        XCTAssertEqual(status.status, 0)
        XCTAssertEqual(try status.object.string("rollout"), "spring")
        XCTAssertEqual(try status.object.string("state"), "active")
        let devices = try status.object.objects("devices")
        XCTAssertEqual(try devices.map { try $0.string("device") }, (0..<3).map(RolloutFixtures.deviceName))
        XCTAssertTrue(
            devices.allSatisfy { $0.isNull("result") && $0.isNull("gateway") && $0.isNull("error") })
        XCTAssertEqual(try devices.map { try $0.int("attempts") }, [0, 0, 0])
        let summary = try status.object.object("summary")
        XCTAssertEqual(try summary.int("pending"), 3)
        XCTAssertEqual(try summary.int("completed"), 0)

        // A gateway's claim shows in the device's line and in the rollout's gateways.
        let gatewayStore = try EmbeddedRolloutStore(path: store)
        let claims = try await gatewayStore.claim(
            "spring", for: "hall-a", among: nil, limit: 5, lease: .seconds(60))
        XCTAssertEqual(claims.count, 1, "the canary alone")
        await gatewayStore.close()
        let claimed = try await RolloutCLI.run(["status", "spring", "--store", store]).object
        XCTAssertEqual(try claimed.objects("devices")[0].string("gateway"), "hall-a")
        XCTAssertEqual(try claimed.objects("devices")[0].int("attempts"), 1)
        let gateways = try claimed.objects("gateways")
        XCTAssertEqual(try gateways.map { try $0.string("gateway") }, ["hall-a"])
        XCTAssertNotNil(
            try gateways[0].string("last_seen").range(
                of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression))

        for (command, state) in [("pause", "paused"), ("resume", "active"), ("cancel", "cancelled")] {
            let steered = try await RolloutCLI.run([command, "spring", "--store", store])
            XCTAssertEqual(steered.status, 0)
            XCTAssertEqual(try steered.object.string("state"), state)
        }
        let stored = try EmbeddedRolloutStore(path: store)
        let kept = try await stored.status(of: "spring")
        XCTAssertEqual(kept.summary.canary, 1)
        XCTAssertEqual(kept.summary.state, .cancelled)
        await stored.close()
    }

    /// `rollout create` keeps each device's entry alone, and once the frame that makes it an
    /// inventory file of that entry alone, with the defaults, for the gateways to read instead
    /// of the whole inventory.
    func testCreateKeepsEachDevicesEntry() async throws {
        let (folder, inventory, store) = try RolloutCLI.workspace(self, devices: 3)
        let created = try await RolloutCLI.run(["create", "spring", inventory, "--store", store])
        XCTAssertEqual(created.status, 0)
        let stored = try EmbeddedRolloutStore(path: store)
        let names = (0..<3).map(RolloutFixtures.deviceName)
        let read = try await stored.inventoryEntries(of: "spring", named: Set(names))
        await stored.close()
        XCTAssertEqual(read?.folder, folder.standardizedFileURL.path)
        for name in names {
            let entry = try XCTUnwrap(read?.entries[name], name)
            XCTAssertEqual(try JSONSerialization.jsonObject(with: entry) as? NSDictionary, ["device": name])
            let file = try XCTUnwrap(read?.file(of: name), name)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: file) as? NSDictionary)
            XCTAssertEqual(object, ["defaults": ["package": "app.zip"], "devices": [["device": name]]])
        }
    }

    func testErrorsFollowTheContract() async throws {
        let (folder, inventory, store) = try RolloutCLI.workspace(self, devices: 1)
        _ = try await RolloutCLI.run(["create", "r", inventory, "--store", store])
        let cases: [([String], Int32, String)] = [
            (["create", "r", inventory, "--store", store], 64, "rollout_exists"),
            (["status", "nope", "--store", store], 64, "no_such_rollout"),
            (
                ["create", "s", folder.appendingPathComponent("none.json").path, "--store", store], 66,
                "file_not_found"
            ),
            (["status", "r", "--store", "postgres://gw:secret@127.0.0.1/x"], 64, "usage"),
        ]
        for (arguments, status, errorClass) in cases {
            let failed = try await RolloutCLI.run(arguments)
            XCTAssertEqual(failed.status, status, "\(arguments)")
            let error = try failed.object.object("error")
            XCTAssertEqual(try error.string("class"), errorClass, "\(arguments)")
            XCTAssertFalse(try error.string("message").contains("secret"))
        }
        // a gateway's simulated-devices file given for the inventory: no device could get a package
        let packageless = folder.appendingPathComponent("devices.json")
        try Data(#"{"devices": [{"device": "C0:DE:00:00:00:10"}]}"#.utf8).write(to: packageless)
        let refused = try await RolloutCLI.run(["create", "s", packageless.path, "--store", store])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(
            try refused.object.object("error").string("message").contains(
                "device 1 (C0:DE:00:00:00:10) has no package"))
        _ = try await RolloutCLI.run(["cancel", "r", "--store", store])
        let resumed = try await RolloutCLI.run(["resume", "r", "--store", store])
        XCTAssertEqual(resumed.status, 64)
        XCTAssertEqual(try resumed.object.object("error").string("class"), "invalid_transition")
        XCTAssertEqual(
            try resumed.object.object("error").string("message"),
            "a rollout that is cancelled cannot be told to resume; a cancelled rollout is not taken back; "
                + "`rollout retry` makes a new one of the devices it left")
    }
}

/// `dfu-update rollout` on PostgreSQL: `migrate` as the owner, then an operator's role creates
/// and reads a rollout, its password from the environment.
final class RolloutCLIPostgresTests: PostgresTestCase {
    func testMigrateThenOperate() async throws {
        let folder = try RolloutCLI.temporaryFolder(self)
        let inventory = try RolloutCLI.inventory(devices: 2, in: folder).path
        let owner = backend.server.location.description
        let migrated = try await RolloutCLI.run(
            ["migrate", "--store", owner], environment: ["DFU_UPDATE_STORE_PASSWORD": backend.server.password]
        )
        XCTAssertEqual(migrated.status, 0)

        let password = UUID().uuidString
        try await backend.createLoginRole(
            "rollout_cli_operator", in: "dfu_rollout_operator", password: password)
        var location = backend.server.location
        location.user = "rollout_cli_operator"
        let environment = ["DFU_UPDATE_STORE": location.description, "DFU_UPDATE_STORE_PASSWORD": password]
        let name = "cli-\(UUID().uuidString.prefix(8))"
        let created = try await RolloutCLI.run(["create", name, inventory], environment: environment)
        XCTAssertEqual(created.status, 0)
        let status = try await RolloutCLI.run(["status", name], environment: environment)
        XCTAssertEqual(try status.object.objects("devices").count, 2)
        XCTAssertEqual(try status.object.string("state"), "active")

        let wrong = try await RolloutCLI.run(
            ["status", name], environment: environment.merging(["DFU_UPDATE_STORE_PASSWORD": "wrong"]) { $1 })
        XCTAssertEqual(wrong.status, 1)
        let message = try wrong.object.object("error").string("message")
        XCTAssertTrue(
            message.hasPrefix(
                "the rollout store failed: PostgreSQL 28P01: password authentication failed for user \"rollout_cli_operator\""
            ), message)
        XCTAssertTrue(message.contains("the password came from DFU_UPDATE_STORE_PASSWORD"), message)
    }
}
