import DFUFleet
import DFUGateway
import DFURollout
import Foundation
import TestSupport
import XCTest

/// Gateway agents in one process on an embedded store: claims shared out, leases kept and lost,
/// the operator's cancel, and a gateway that stops.
final class GatewayAgentTests: XCTestCase {
    /// Three gateways, each device seen by two of them: each device updated once, by one.
    func testOverlappingGatewaysUpdateEachDeviceOnce() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("spring", devices: 12)
        let gateways = try (0..<3).map { number in
            // gateway n sees devices 4n … 4n+7 (mod 12): every device by two gateways
            try bench.gateway("gw\(number)", sees: (0..<8).map { (4 * number + $0) % 12 })
        }
        await withTaskGroup(of: Void.self) { group in
            for gateway in gateways { group.addTask { await gateway.run() } }
        }
        let store = try bench.openStore()
        let status = try await store.status(of: "spring")
        await store.close()
        XCTAssertEqual(status.summary.state, .completed)
        XCTAssertEqual(status.devices.map(\.result), Array(repeating: .completed, count: 12))
        XCTAssertEqual(status.devices.map(\.attempts), Array(repeating: 1, count: 12))
        for index in 0..<12 {
            let device = GatewayTestBench.address(index)
            let activations = gateways.map { $0.activations[device] ?? 0 }
            XCTAssertEqual(activations.reduce(0, +), 1, "\(device): \(activations)")
            let updater = status.devices[index].gateway
            XCTAssertEqual(
                gateways.first { $0.reported()[device] == .completed }.map(\.name),
                updater)
        }
    }

    /// A gateway whose renewals fail (its store is cut off) stops writing to the device before
    /// the store's lease ends, reports nothing, and another gateway then takes the device over.
    func testAGatewayCutOffFromTheStoreStopsBeforeItsLeaseEnds() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout(
            "spring", devices: 1, package: "secure/secure_app_100k_hex_signed_bootval_ecdsa.zip")
        let cut = CutStore(try bench.openStore())
        let lease = Duration.seconds(2)
        let first = try bench.gateway("gw1", sees: [0], realTimeFactor: 1, store: cut) {
            $0.lease = lease
            $0.exitWhenIdle = false
        }
        let running = Task { await first.run() }
        _ = try await first.firstClaim()
        cut.cut()
        _ = try await first.poll("lost its lease") { first.leaseLost().first }
        running.cancel()
        await running.value
        XCTAssertEqual(first.leaseLost(), [GatewayTestBench.address(0)])
        XCTAssertEqual(first.reported(), [:])
        XCTAssertEqual(first.activations[GatewayTestBench.address(0)], 0)
        // Every event of its update, the abort included, came before the lease it last held
        // ended in the store.
        let lastUpdateEvent = try XCTUnwrap(first.lastFleetEvent())
        let storeLeaseEnd = try XCTUnwrap(cut.lastLeaseEnd)
        XCTAssertLessThan(lastUpdateEvent.wall, storeLeaseEnd)

        let second = try bench.gateway("gw2", sees: [0]) { $0.lease = lease }
        await second.run()
        XCTAssertEqual(second.reported(), [GatewayTestBench.address(0): .completed])
        let store = try bench.openStore()
        let status = try await store.status(of: "spring")
        await store.close()
        XCTAssertEqual(status.devices[0].attempts, 2)
        XCTAssertEqual(status.devices[0].gateway, "gw2")
    }

    /// Cancelling the rollout reaches a running update within a heartbeat: it is aborted and
    /// reported so; the device was not activated.
    func testCancelAbortsTheUpdatesInProgress() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout(
            "spring", devices: 1, package: "secure/secure_app_100k_hex_signed_bootval_ecdsa.zip")
        let gateway = try bench.gateway("gw1", sees: [0], realTimeFactor: 1) { $0.lease = .seconds(1.5) }
        let running = Task { await gateway.run() }
        _ = try await gateway.firstClaim()
        let operator_ = try bench.openStore()
        try await operator_.apply(.cancel, to: "spring")
        await running.value
        let status = try await operator_.status(of: "spring")
        await operator_.close()
        XCTAssertEqual(gateway.reported(), [GatewayTestBench.address(0): .aborted])
        XCTAssertEqual(status.summary.state, .cancelled)
        XCTAssertEqual(status.devices[0].result, .aborted)
        XCTAssertEqual(gateway.activations[GatewayTestBench.address(0)], 0)
    }

    /// A gateway that stops (its task cancelled, as on SIGTERM) aborts its updates and gives the
    /// devices back: another gateway takes them at once, without waiting for a lease to end.
    func testAStoppedGatewayGivesItsDevicesBack() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout(
            "spring", devices: 2, package: "secure/secure_app_100k_hex_signed_bootval_ecdsa.zip")
        let first = try bench.gateway("gw1", sees: [0, 1], realTimeFactor: 1) {
            $0.lease = .seconds(600)
            $0.exitWhenIdle = false
        }
        let running = Task { await first.run() }
        _ = try await first.firstClaim()
        running.cancel()
        await running.value
        XCTAssertEqual(Set(first.released()), Set(first.claims().map(\.device)))
        XCTAssertEqual(first.reported(), [:])

        let second = try bench.gateway("gw2", sees: [0, 1]) { $0.lease = .seconds(600) }
        await second.run()
        XCTAssertEqual(second.reported().values.map { $0 }, [.completed, .completed])
    }

    /// A gateway stopped in the middle of an update says so: the device's result is `aborted`
    /// with the bytes it had sent, and it is given back as interrupted, not as never started.
    func testAStoppedGatewaySaysWhatItInterrupted() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout(
            "spring", devices: 1, package: "secure/secure_app_100k_hex_signed_bootval_ecdsa.zip")
        let gateway = try bench.gateway("gw1", sees: [0], realTimeFactor: 1) {
            $0.lease = .seconds(600)
            $0.exitWhenIdle = false
        }
        let running = Task { await gateway.run() }
        let sent = try await gateway.poll("sent firmware") {
            gateway.events.withLock { events in
                events.lazy.compactMap { entry -> Int? in
                    guard case .fleet(_, .device(_, .progress(let progress))) = entry.event,
                        progress.bytesSent > 0
                    else { return nil }
                    return progress.bytesSent
                }.first
            }
        }
        running.cancel()
        await running.value
        let finished = gateway.events.withLock { events in
            events.lazy.compactMap { entry -> FleetDeviceReport? in
                if case .fleet(_, .finished(let report)) = entry.event { report } else { nil }
            }.first
        }
        XCTAssertEqual(finished?.result, .aborted)
        XCTAssertGreaterThanOrEqual(finished?.bytesSent ?? 0, sent)
        let reasons = gateway.events.withLock { events in
            events.compactMap { entry -> String? in
                if case .released(_, let reason) = entry.event { reason } else { nil }
            }
        }
        XCTAssertEqual(reasons.count, 1)
        XCTAssertTrue(reasons.first?.contains("interrupted after") ?? false, "\(reasons)")
    }

    /// A second gateway of a running gateway's name is refused before it claims anything; once
    /// the first stopped, the name is free at once.
    func testASecondGatewayOfTheSameNameIsRefused() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("spring", devices: 1)
        let first = try bench.gateway("hall-a", sees: [0], realTimeFactor: 1) { $0.exitWhenIdle = false }
        let running = Task { await first.run() }
        _ = try await first.firstClaim()
        let second = try bench.gateway("hall-a", sees: [0])
        await second.run()
        let refused = second.events.withLock { events in
            events.contains { if case .nameInUse = $0.event { true } else { false } }
        }
        XCTAssertTrue(refused)
        XCTAssertEqual(second.claims(), [])
        running.cancel()
        await running.value
        let third = try bench.gateway("hall-a", sees: [0])
        await third.run()
        let thirdRefused = third.events.withLock { events in
            events.contains { if case .nameInUse = $0.event { true } else { false } }
        }
        XCTAssertFalse(thirdRefused, "the name of a stopped gateway is free")
    }

    /// A device already up to date is reported `skipped` with no error: a skip is no failure.
    func testASkippedDeviceHasNoError() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("spring", devices: 1)
        let gateway = try bench.gateway("gw1", sees: [0])
        await gateway.run()
        // the device runs the package now: a second rollout of it finds it up to date
        try await bench.createRollout("summer", devices: 1)
        await gateway.run()
        let store = try bench.openStore()
        let device = try await store.status(of: "summer").devices[0]
        await store.close()
        XCTAssertEqual(device.result, .skipped)
        XCTAssertNil(device.error)
    }

    /// A paused rollout: the gateway asks and gets nothing, and does not take it for done; once
    /// resumed, the gateway updates its devices and then exits.
    func testAPausedRolloutWaitsForItsResume() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("spring", devices: 2)
        let operator_ = try bench.openStore()
        try await operator_.apply(.pause, to: "spring")
        let counting = CutStore(try bench.openStore())
        let gateway = try bench.gateway("gw1", sees: [0, 1], store: counting)
        let running = Task { await gateway.run() }
        _ = try await gateway.poll("asked three times") { counting.claimCalls >= 3 ? true : nil }
        XCTAssertEqual(gateway.claims(), [])
        let waiting = gateway.events.withLock { events in
            events.compactMap { entry -> String? in
                if case .waiting(let rollout, let reason) = entry.event {
                    "\(rollout): \(reason)"
                } else {
                    nil
                }
            }
        }
        XCTAssertEqual(waiting.count, 1, "said once why it waits: \(waiting)")
        XCTAssertTrue(waiting.first?.hasPrefix("spring: it is paused") ?? false, "\(waiting)")
        try await operator_.apply(.resume, to: "spring")
        await running.value
        await operator_.close()
        XCTAssertEqual(
            gateway.reported().values.sorted { $0.rawValue < $1.rawValue }, [.completed, .completed])
    }
}
