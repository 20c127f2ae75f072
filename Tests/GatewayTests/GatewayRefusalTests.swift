import DFUFleet
import DFUGateway
import DFURollout
import Foundation
import TestSupport
import XCTest

/// What a gateway refuses before it updates anything: a store that refuses its role, a package no
/// bootloader can verify, a rollout without packages.
final class GatewayRefusalTests: XCTestCase {
    /// Issue 36: a package Nordic's bootloaders cannot verify (SHA-512), in a store that took
    /// it, makes the rollout unusable with `flash`'s error before any device is claimed or
    /// connected.
    func testAPackageBootloadersCannotVerifyIsRefusedBeforeConnecting() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("sha512", devices: 1, bytes: Data(SHA512Package.bytes))
        let gateway = try bench.gateway("gw", sees: [0])
        await gateway.run()
        let reasons = gateway.unusableReasons()
        XCTAssertEqual(reasons.count, 1, "\(reasons)")
        XCTAssertTrue(reasons.first?.hasPrefix("unsupported_hash_type: ") ?? false, "\(reasons)")
        XCTAssertTrue(reasons.first?.contains("sha512") ?? false, "\(reasons)")
        XCTAssertEqual(gateway.claims(), [])
        let device = GatewayTestBench.address(0)
        XCTAssertEqual(gateway.centrals[device]?.snapshots.first?.connectionAttempts, 0)
    }

    /// A fleet's state file given as the store: its rollout keeps no package, so the gateway
    /// says once that it cannot use it and claims none of its devices (each of them would be
    /// given back: the package is not loaded).
    func testAFleetStateFileIsNoRolloutToUpdateFrom() async throws {
        let bench = try GatewayTestBench(self)
        // as `FleetStateFile` makes it: the inventory's devices and file, no package
        let inventory = #"{"defaults": {"package": "app.zip"}, "devices": [{"device": "C0:DE:00:02:00:00"}]}"#
        let store = try bench.openStore()
        try await store.create(
            RolloutSpec(
                name: "crc32:00000000:80", packages: [],
                devices: [RolloutDevice(device: GatewayTestBench.address(0), packageSHA256: nil)],
                inventory: RolloutInventory(bytes: Data(inventory.utf8), folder: bench.folder.path)))
        await store.close()
        let gateway = try bench.gateway("gw", sees: [0])
        await gateway.run()
        let reasons = gateway.unusableReasons()
        XCTAssertEqual(reasons.count, 1, "\(reasons)")
        XCTAssertTrue(reasons.first?.contains("keeps no package") ?? false, "\(reasons)")
        XCTAssertEqual(gateway.claims(), [])
    }

    /// A store that refuses the gateway (its role lacks the gateway's grants) is no outage: the
    /// gateway asks once, stops with the refusal and emits no `storeUnavailable`; an outage is
    /// waited out (asked again and again until the gateway is stopped).
    func testAGatewayRefusedByTheStoreStopsAndAnOutageIsWaitedOut() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("spring", devices: 1)
        let refusing = CutStore(try bench.openStore())
        let denied = StoreFailure(.permission, "PostgreSQL 42501: permission denied for table gateways")
        refusing.cut(as: denied)
        let gateway = try bench.gateway("gw1", sees: [0], store: refusing) { $0.exitWhenIdle = false }
        await gateway.run()
        let stopped = gateway.failure.withLock { $0 }
        guard case .storage(let failure)? = stopped as? RolloutStoreError else {
            return XCTFail("the gateway did not stop with the store's refusal")
        }
        XCTAssertEqual(failure, denied)
        // the refused announcement, then the name withdrawn on the way out: no second claim
        XCTAssertEqual(refusing.calls, 2, "asked again after a refusal")
        XCTAssertTrue(
            gateway.events.withLock { $0 }.allSatisfy {
                if case .storeUnavailable = $0.event { false } else { true }
            })

        let away = CutStore(try bench.openStore())
        away.cut()
        let waiting = try bench.gateway("gw2", sees: [0], store: away) { $0.exitWhenIdle = false }
        let running = Task { await waiting.run() }
        _ = try await waiting.poll("asked three times") { away.calls >= 3 ? true : nil }
        running.cancel()
        await running.value
        XCTAssertNil(waiting.failure.withLock { $0 })
    }
}
