import DFURollout
import XCTest

/// The hand-over between one device and the next in a gateway's slot (issue 39): the next
/// claim does not wait for a success's report, and waits for a failure's; a device's update
/// takes over its probe's link.
final class GatewayHandOverTests: XCTestCase {
    /// One slot, two devices: the first one's result (completed) is reported while the gateway
    /// already asks for the second; both are recorded.
    func testClaimsTheNextDeviceWhileASuccessIsReported() async throws {
        let store = try await handOver(faults: [:])
        XCTAssertTrue(store.claimsReachedWhileHeld, "the next claim waited for the report")
    }

    /// One slot, two devices, the first one failing (it cannot be connected to): its report
    /// could halt the rollout, so the next claim comes only once the store recorded it.
    func testWaitsForAFailuresReportBeforeTheNextClaim() async throws {
        let store = try await handOver(faults: [0: ["reject-connect=1000"]])
        XCTAssertFalse(store.claimsReachedWhileHeld, "claimed before a failure was recorded")
    }

    /// A claimed device's probe and update share one link: its application is connected to
    /// once, then its bootloader, then the application again to read the version it runs.
    func testTheUpdateGoesOnOnTheLinkOfTheProbe() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("spring", devices: 1, withInventory: true)
        let gateway = try bench.gateway("gw1", sees: [0])
        await gateway.run()
        XCTAssertEqual(gateway.reported(), [GatewayTestBench.address(0): .completed])
        let attempts = gateway.centrals.values.first?.snapshots.first?.connectionAttempts
        XCTAssertEqual(attempts, 3, "probe and update, bootloader, version read back")
    }

    /// Devices 0 and 1 updated one at a time, device 0's report held; returns the store.
    private func handOver(faults: [Int: [String]]) async throws -> CutStore {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("spring", devices: 2, withInventory: true)
        let store = CutStore(try bench.openStore())
        // device 0's report, until device 1 is claimed (the second claim)
        store.holdNextReport(untilClaims: 2)
        let gateway = try bench.gateway("gw1", sees: [0, 1], faults: faults, store: store) {
            $0.concurrency = 1
        }
        await gateway.run()
        XCTAssertNil(gateway.failure.withLock { $0 })
        XCTAssertEqual(gateway.claims().map(\.device), [0, 1].map(GatewayTestBench.address))
        XCTAssertEqual(
            gateway.reported(),
            [
                GatewayTestBench.address(0): faults.isEmpty ? .completed : .failed,
                GatewayTestBench.address(1): .completed,
            ])
        return store
    }
}
