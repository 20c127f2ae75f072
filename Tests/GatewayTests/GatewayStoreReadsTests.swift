import DFUGateway
import DFURollout
import Foundation
import XCTest

/// What a gateway reads of a rollout: only the devices it reaches and the kept counts, so that
/// its cost does not grow with the rollout (issue 39).
final class GatewayStoreReadsTests: XCTestCase {
    /// Runs a gateway `gw1` that reaches the devices `reached` of the bench's rollout through
    /// `store`: it ends without a failure, having reported each of them completed.
    private func updates(
        _ bench: GatewayTestBench, _ reached: [Int], through store: CutStore, _ message: String = ""
    ) async throws {
        let gateway = try bench.gateway("gw1", sees: reached, store: store)
        await gateway.run()
        XCTAssertNil(gateway.failure.withLock { $0 }, message)
        XCTAssertEqual(
            gateway.reported(),
            Dictionary(
                uniqueKeysWithValues: reached.map { (GatewayTestBench.address($0), DeviceResult.completed) }),
            message)
    }

    /// A gateway that reaches 3 of a rollout's 40 devices (made with its inventory, as `rollout
    /// create` makes it) updates them, finds itself idle and exits without ever reading the
    /// rollout's whole status.
    func testReadsNoWholeStatus() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("spring", devices: 40, withInventory: true)
        let counting = CutStore(try bench.openStore())
        try await updates(bench, [1, 5, 7], through: counting)
        XCTAssertEqual(counting.statusCalls, 0, "read every device of the rollout")
        let store = try bench.openStore()
        let summary = try await store.summary(of: "spring")
        await store.close()
        XCTAssertEqual(summary.pending, 37)
        XCTAssertEqual(summary.state, .active)
    }

    /// A gateway reads the entries of the devices it reaches, never the rollout's whole inventory
    /// (its devices' entries kept by the store, as `rollout create` keeps them): those of the
    /// first device when it loads the rollout, then all it reaches at once, not one call per
    /// device. With a rollout stored by an older version (the whole inventory only) it reads
    /// the whole inventory once.
    func testReadsEntriesNotTheWholeInventory() async throws {
        for entries in [true, false] {
            let bench = try GatewayTestBench(self)
            try await bench.createRollout("spring", devices: 40, withInventory: true, entries: entries)
            let counting = CutStore(try bench.openStore())
            try await updates(bench, [2, 3, 9, 10, 11, 20], through: counting, "entries: \(entries)")
            XCTAssertEqual(counting.inventoryCalls, entries ? 0 : 1, "entries: \(entries)")
            XCTAssertEqual(counting.entriesCalls, entries ? 2 : 1, "entries: \(entries)")
        }
    }

    /// A gateway woken by each device's end announces itself and reads the list of rollouts
    /// once per poll interval at most, not at every wake: 24 devices two at a time wake it a
    /// dozen times or more. (Before it concludes it is idle it reads the list again.)
    func testAsksOncePerPollIntervalNotAtEveryWake() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("spring", devices: 24, withInventory: true)
        let counting = CutStore(try bench.openStore())
        let poll = Duration.seconds(1)
        let gateway = try bench.gateway("gw1", sees: Array(0..<24), store: counting) {
            $0.concurrency = 2
            $0.pollInterval = poll
        }
        let start = ContinuousClock.now
        await gateway.run()
        let polls = Int(((ContinuousClock.now - start) / poll).rounded(.up))
        XCTAssertNil(gateway.failure.withLock { $0 })
        XCTAssertEqual(gateway.reported().count, 24)
        XCTAssertGreaterThanOrEqual(counting.claimCalls, 12, "the gateway was woken fewer times than thought")
        XCTAssertLessThanOrEqual(counting.announceCalls, polls + 1, "announced at every wake")
        XCTAssertLessThanOrEqual(counting.rolloutsCalls, polls + 2, "read the rollouts at every wake")
    }

    /// A device whose result the gateway recorded leaves its queue at once: no later claim
    /// names it (so that claims are not cut short by devices already done, each one followed by
    /// a read of the batch and a second claim).
    func testClaimsNameNoDeviceItReported() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("spring", devices: 6, withInventory: true)
        let counting = CutStore(try bench.openStore())
        // one at a time: the loop claims only once the last update's run has ended
        let gateway = try bench.gateway("gw1", sees: Array(0..<6), store: counting) { $0.concurrency = 1 }
        await gateway.run()
        XCTAssertNil(gateway.failure.withLock { $0 })
        XCTAssertEqual(gateway.reported().count, 6)
        XCTAssertEqual(counting.namedReported, 0)
    }
}
