import DFURollout
import Foundation
import TestSupport
import XCTest

/// Several `dfu-update gateway` processes sharing one rollout on PostgreSQL (issue 28): every
/// device updated exactly once, a killed gateway's device taken over, the database restarted
/// mid-rollout, a gateway cut off from the database fenced, a canary failure halting them all.
final class MultiGatewayTests: PostgresTestCase {
    /// Four gateways, each device seen by two; one gateway killed (SIGKILL) mid-update and the
    /// database stopped and started mid-rollout: every device completed, its simulated device
    /// activated once over all gateways; the killed gateway's device taken over by the other
    /// gateway that sees it.
    func testKilledGatewayAndRestartedDatabaseStillUpdateEveryDeviceOnce() async throws {
        let fleet = try GatewayFleet(self, backend: backend, devices: 16, block: 1)
        try await fleet.createRollout(
            "kill-restart", package: "secure/secure_app_100k_hex_signed_bootval_ecdsa.zip")
        var gateways: [BackgroundProcess] = []
        for number in 0..<4 {
            gateways.append(
                try await fleet.startGateway(
                    "gw\(number)", sees: (0..<8).map { (4 * number + $0) % 16 }, realTimeFactor: 0.3,
                    lease: 20
                ))
        }
        // every gateway is at work (connected) before the database goes away
        for gateway in gateways {
            _ = try await gateway.line { GatewayOutput.json($0)?["event"] as? String == "claimed" }
        }
        let victim = gateways[0]
        let progress = try await victim.line { GatewayOutput.json($0)?["event"] as? String == "progress" }
        let held = try XCTUnwrap(GatewayOutput.json(progress.text)?["device"] as? String)
        victim.signal(SIGKILL)
        try await victim.wait()
        // The database restarts mid-rollout: down for 3 s (the outage's length is the scenario's,
        // well within the 20 s leases), then back on its port.
        let owner = try await backend.open()
        let pending = try await owner.status(of: fleet.rollout("kill-restart")).devices.filter {
            $0.result == nil
        }.count
        try await owner.close()
        XCTAssertGreaterThan(pending, 0)
        try await backend.server.stop()
        try await Task.sleep(for: .seconds(3))
        try await backend.server.start()
        for gateway in gateways.dropFirst() {
            let status = try await gateway.wait(within: .seconds(180))
            XCTAssertEqual(status, 0, gateway.standardError)
        }

        let store = try await backend.open()
        let status = try await store.status(of: fleet.rollout("kill-restart"))
        try await store.close()
        XCTAssertEqual(status.summary.state, .completed)
        XCTAssertEqual(status.devices.map(\.result), Array(repeating: .completed, count: 16))
        let taken = try XCTUnwrap(status.devices.first { $0.device == held })
        XCTAssertNotEqual(taken.gateway, fleet.role("gw0"), "the killed gateway's device was taken over")
        XCTAssertGreaterThanOrEqual(taken.attempts, 2)
        let activations = GatewayOutput.activations(gateways)
        for device in fleet.devices {
            XCTAssertEqual(activations[device], 1, "\(device) activated \(activations[device] ?? 0) times")
        }
    }

    /// A gateway cut off from the database (its role may no longer log in, its sessions ended)
    /// stops writing to its device before its lease ends; another gateway that sees the device
    /// takes it over only then, and completes it.
    func testAGatewayCutOffFromTheDatabaseIsFenced() async throws {
        let fleet = try GatewayFleet(self, backend: backend, devices: 1, block: 2)
        try await fleet.createRollout("cut", package: "secure/secure_app_100k_hex_signed_bootval_ecdsa.zip")
        // its update takes longer than its lease: it would still be writing when the lease ends
        let cut = try await fleet.startGateway(
            "cut", sees: [0], realTimeFactor: 2, lease: 3, exitWhenIdle: false)
        _ = try await cut.line { GatewayOutput.json($0)?["event"] as? String == "progress" }
        // its own lease matters to nothing here: long, so that a loaded machine cannot take it
        let other = try await fleet.startGateway("other", sees: [0], realTimeFactor: 0, lease: 60)
        try await fleet.cutOff("cut")
        let otherStatus = try await other.wait(within: .seconds(120))
        XCTAssertEqual(otherStatus, 0, other.standardError)
        _ = try await cut.line(within: .seconds(30)) {
            GatewayOutput.json($0)?["event"] as? String == "lease_lost"
        }
        cut.signal(SIGTERM)
        try await cut.wait()

        let lastWrite = try XCTUnwrap(GatewayOutput.lines(cut, event: "progress").last).arrived
        let takeOver = try XCTUnwrap(GatewayOutput.lines(other, event: "claimed").first).arrived
        XCTAssertLessThan(lastWrite, takeOver, "the cut gateway wrote after another took the device")
        XCTAssertEqual(GatewayOutput.lines(cut, event: "reported").count, 0)
        XCTAssertEqual(GatewayOutput.activations([cut, other]), [fleet.devices[0]: 1])
        let store = try await backend.open()
        let device = try await store.status(of: fleet.rollout("cut")).devices[0]
        try await store.close()
        XCTAssertEqual(device.result, .completed)
        XCTAssertEqual(device.gateway, fleet.role("other"))
        XCTAssertEqual(device.attempts, 2)
    }

    /// The canary device fails on the gateway that holds it: the rollout halts, and no gateway
    /// starts another device; all of them find nothing to do and exit.
    func testACanaryFailureHaltsEveryGateway() async throws {
        let fleet = try GatewayFleet(self, backend: backend, devices: 9, block: 3)
        try await fleet.createRollout("canary", package: "secure/secure_app_20_hex_signed.zip", canary: 1)
        var gateways: [BackgroundProcess] = []
        for number in 0..<3 {
            gateways.append(
                try await fleet.startGateway(
                    "gw\(number)", sees: Array(0..<9), realTimeFactor: 0, faults: [0: "reject-connect=1000"],
                    lease: 5))
        }
        for gateway in gateways {
            let status = try await gateway.wait(within: .seconds(120))
            XCTAssertEqual(status, 0, gateway.standardError)
        }
        let store = try await backend.open()
        let status = try await store.status(of: fleet.rollout("canary"))
        try await store.close()
        XCTAssertEqual(status.summary.state, .halted)
        XCTAssertEqual(status.devices[0].result, .failed)
        XCTAssertEqual(status.devices.dropFirst().map(\.attempts), Array(repeating: 0, count: 8))
        XCTAssertEqual(gateways.map { GatewayOutput.lines($0, event: "claimed").count }.reduce(0, +), 1)
    }
}
