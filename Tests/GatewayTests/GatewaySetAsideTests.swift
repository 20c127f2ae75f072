import DFUGateway
import DFURollout
import Foundation
import XCTest

/// A device a gateway gives back for a reason of its own is not claimed by it again in the
/// same run, and one it did not find on the adapter its inventory entry names is claimed again
/// only once that adapter hears it: claiming either again at once would end the same way, over
/// and over.
final class GatewaySetAsideTests: XCTestCase {
    /// A rollout whose inventory puts one device on an adapter this gateway does not use: the
    /// gateway gives that device back once, saying why, updates the others and, with nothing
    /// else to do, exits; the device keeps no result, for a gateway that has that adapter.
    func testADeviceThisGatewayCannotUpdateIsGivenBackOnce() async throws {
        let bench = try GatewayTestBench(self)
        let elsewhere = GatewayTestBench.address(0)
        try await bench.createRollout(
            "spring", devices: 3, withInventory: true, entryMembers: [0: #""adapter": "hci1""#])
        let gateway = try bench.gateway("gw1", sees: [0, 1, 2], adapters: ["hci0"])
        let idle = await gateway.runUntilIdle()
        XCTAssertTrue(idle, "the gateway did not find itself idle")
        XCTAssertEqual(gateway.released(), [elsewhere], "given back more than once, or not at all")
        let reasons = gateway.releaseReasons()
        XCTAssertTrue(
            reasons.first?.hasPrefix("this gateway cannot update it:") == true
                && reasons.first?.hasSuffix("this gateway does not take it again until it restarts") == true,
            "\(reasons)")
        XCTAssertEqual(
            gateway.reported(),
            [GatewayTestBench.address(1): .completed, GatewayTestBench.address(2): .completed])
        let store = try bench.openStore()
        let device = try await store.devices(of: "spring", named: [elsewhere]).first
        await store.close()
        XCTAssertNotNil(device)
        XCTAssertNil(device?.result)
    }

    /// A device heard on one adapter whose inventory entry names another, which does not hear
    /// it: the gateway gives it back once (not found there), updates the others and exits.
    func testADeviceNotFoundOnItsAdapterWaitsUntilThatAdapterHearsIt() async throws {
        let bench = try GatewayTestBench(self)
        let pinned = GatewayTestBench.address(0)
        try await bench.createRollout(
            "spring", devices: 3, withInventory: true, entryMembers: [0: #""adapter": "hci1""#])
        let gateway = try bench.gateway("gw1", sees: [0, 1, 2], adapters: ["hci0", "hci1"]) {
            $0.fleet.discoveryTimeout = .milliseconds(200)
        }
        let idle = await gateway.runUntilIdle()
        XCTAssertTrue(idle, "the gateway did not find itself idle")
        XCTAssertEqual(gateway.released(), [pinned], "given back more than once, or not at all")
        let reasons = gateway.releaseReasons()
        XCTAssertEqual(
            reasons,
            [
                "not found on hci1, the adapter its inventory entry names; "
                    + "this gateway takes it again once hci1 hears it"
            ])
        XCTAssertEqual(
            gateway.reported(),
            [GatewayTestBench.address(1): .completed, GatewayTestBench.address(2): .completed])
    }
}
