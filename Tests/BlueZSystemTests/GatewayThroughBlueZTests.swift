import Foundation
import XCTest

/// `dfu-update gateway` through real bluetoothd (docs/gateway.md): a rollout of one `dfu-sim`
/// device in an embedded store, taken up by a gateway on hci0. The gateway's update goes on on
/// the link its probe opened (docs/gateway.md, step 4), so this is where that hand-over meets a
/// real stack: the Secure application's buttonless jump on the handed link, the bootloader on a
/// link of its own, the version read back afterwards.
final class GatewayThroughBlueZTests: DFUThroughBlueZTestCase {
    func testAGatewayUpdatesARolloutsDeviceOnItsProbesLink() async throws {
        let (simulator, address) = try await simulate("secure-app")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inventory = folder.appendingPathComponent("rollout.json")
        let entry = [
            "device": address, "package": SystemTestEnvironment.repositoryFile("Firmware/secure_app.zip"),
        ]
        try JSONSerialization.data(withJSONObject: ["devices": [entry]]).write(to: inventory)
        let store = folder.appendingPathComponent("rollouts.sqlite").path
        let dfuUpdate = SystemTestEnvironment.dfuUpdateExecutable

        let created = try await SystemTestEnvironment.run(
            dfuUpdate, ["rollout", "create", "spring", inventory.path, "--store", store])
        XCTAssertEqual(created.status, 0, created.stdout + created.stderr)
        let gateway = try await SystemTestEnvironment.run(
            dfuUpdate,
            [
                "gateway", "--store", store, "--name", "hall-a", "--adapter",
                SystemTestEnvironment.centralAdapter,
                "--exit-when-idle", "--json", "--device-timeout", "200",
            ], timeout: .seconds(300))
        XCTAssertEqual(gateway.status, 0, gateway.stdout + gateway.stderr)

        let status = try await SystemTestEnvironment.run(
            dfuUpdate, ["rollout", "status", "spring", "--store", store, "--json"])
        let object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], status.stdout)
        XCTAssertEqual(object["state"] as? String, "completed", status.stdout)
        let devices = try XCTUnwrap(object["devices"] as? [[String: Any]], status.stdout)
        XCTAssertEqual(devices.first?["result"] as? String, "completed", "\(status.stdout) \(gateway.stdout)")
        XCTAssertEqual(devices.first?["gateway"] as? String, "hall-a", status.stdout)
        // The application advertised once before its bootloader did: the update went on on the
        // probe's link (the simulated device advertises again whenever a link to it ends).
        let modes = simulator.advertisements.compactMap { $0["mode"] as? String }
        XCTAssertEqual(modes.prefix { $0 == "application" }.count, 1, "\(modes)")
        let held = try await simulator.stop()
        XCTAssertEqual(held["activations"] as? Int, 1, "\(held)")
        XCTAssertEqual(held["mode"] as? String, "application", "\(held)")
    }
}
