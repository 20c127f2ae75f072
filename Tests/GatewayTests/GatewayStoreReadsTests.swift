import DFUGateway
import DFURollout
import Foundation
import XCTest

/// What a gateway reads of a rollout: only the devices it reaches and the kept counts, so that
/// its cost does not grow with the rollout (issue 39).
final class GatewayStoreReadsTests: XCTestCase {
    /// A gateway that reaches 3 of a rollout's 40 devices (made with its inventory, as `rollout
    /// create` makes it) updates them, finds itself idle and exits without ever reading the
    /// rollout's whole status.
    func testReadsNoWholeStatus() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("spring", devices: 40, withInventory: true)
        let counting = CutStore(try bench.openStore())
        let reached = [1, 5, 7]
        let gateway = try bench.gateway("gw1", sees: reached, store: counting)
        await gateway.run()
        XCTAssertNil(gateway.failure.withLock { $0 })
        XCTAssertEqual(
            gateway.reported(),
            Dictionary(
                uniqueKeysWithValues: reached.map { (GatewayTestBench.address($0), DeviceResult.completed) }))
        XCTAssertEqual(counting.statusCalls, 0, "read every device of the rollout")
        let store = try bench.openStore()
        let summary = try await store.summary(of: "spring")
        await store.close()
        XCTAssertEqual(summary.pending, 37)
        XCTAssertEqual(summary.state, .active)
    }
}
