import Foundation
import TestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `dfu-update gateway` as a process: `--metrics` serves while it works, and SIGTERM (the
/// service group's graceful shutdown) gives the device in progress back and exits 130.
final class GatewayCommandTests: XCTestCase {
    func testSIGTERMGivesTheDeviceBackWhileMetricsAreServed() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout(
            "stopped", devices: 1, package: "secure/secure_app_100k_hex_signed_bootval_ecdsa.zip")
        let simulated = bench.folder.appendingPathComponent("sim.json")
        try Data(
            """
            {"devices": [{"device": "\(GatewayTestBench.address(0))", "simulate": {"kind": "secure-app", \
            "firmware_version": "\(GatewayTestBench.installedVersion)", "real_time_factor": 1}}]}
            """.utf8
        ).write(to: simulated)
        let port = try LoopbackPort.free()
        let gateway = try BackgroundProcess(
            CLIRunner.executableURL,
            [
                "gateway", "--store", bench.storePath, "--name", "stopped-gw", "--simulated-devices",
                simulated.path, "--poll", "0.2", "--metrics", "127.0.0.1:\(port)", "--json",
            ])
        _ = try await gateway.line { $0.contains("\"event\":\"progress\"") }
        let (body, response) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        let text = String(decoding: body, as: UTF8.self)
        XCTAssertTrue(text.contains("dfu_gateway_claims_total 1"), text)
        XCTAssertTrue(text.contains("dfu_updates_started_total{family=\"secure\"} 1"), text)
        let (_, missing) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/")!)
        XCTAssertEqual((missing as? HTTPURLResponse)?.statusCode, 404)

        gateway.signal(SIGTERM)
        let status = try await gateway.wait(within: .seconds(60))
        XCTAssertEqual(status, 130, gateway.standardError)
        XCTAssertTrue(
            gateway.lines.contains { $0.text.contains("\"event\":\"released\"") },
            gateway.lines.map(\.text).joined(separator: "\n"))
        XCTAssertEqual(gateway.standardError, "")
        let store = try bench.openStore()
        let device = try await store.status(of: "stopped").devices[0]
        await store.close()
        XCTAssertNil(device.result)
        XCTAssertFalse(device.held, "the device was given back")
    }

    /// An inventory may write an address in any case; the store keeps it as BlueZ prints it, the
    /// form in which a gateway asks for the devices it sees.
    /// A lease shorter than a second runs out before its update starts: the gateway would claim
    /// and lose its devices again and again (thousands of attempts a minute), never idle.
    func testALeaseTooShortToKeepIsAUsageError() async throws {
        let bench = try GatewayTestBench(self)
        for lease in ["0.001", "0.5"] {
            let run = try await CLIRunner.run([
                "gateway", "--store", bench.storePath, "--lease", lease, "--exit-when-idle", "--json",
            ])
            XCTAssertEqual(run.status, 64, lease)
            let error = try run.errorObject()
            XCTAssertEqual(try error.string("class"), "usage", lease)
            XCTAssertTrue(try error.string("message").contains("seconds from 1 to 3600"), lease)
        }
    }

    /// With neither the store nor Bluetooth to be had, the store's error is told: a mistyped
    /// store is the likelier mistake, and Bluetooth's error first would hide it.
    func testTheStoreIsCheckedBeforeBluetooth() async throws {
        let unreachable = "postgres://dfu@127.0.0.1:\(try LoopbackPort.free())/rollouts"
        let run = try await CLIRunner.run(
            ["gateway", "--store", unreachable, "--json"],
            environment: [
                "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/gateway-test",
                "DFU_UPDATE_STORE_PASSWORD": "unused",
            ])
        XCTAssertEqual(run.status, 1, run.stdoutText)
        let error = try run.errorObject()
        XCTAssertEqual(try error.string("class"), "store_error")
        XCTAssertTrue(try error.string("message").contains("connection refused"), run.stdoutText)
    }

    func testAnAddressWrittenInMixedCaseIsUpdated() async throws {
        let bench = try GatewayTestBench(self)
        try FileManager.default.copyItem(
            at: try Fixtures.url("secure/secure_app_20_hex_signed.zip"),
            to: bench.folder.appendingPathComponent("app.zip"))
        let address = GatewayTestBench.address(0)
        let written = address.prefix(3).lowercased() + address.dropFirst(3)  // "c0:DE:…"
        let inventory = bench.folder.appendingPathComponent("rollout.json")
        try Data(#"{"defaults": {"package": "app.zip"}, "devices": [{"device": "\#(written)"}]}"#.utf8).write(
            to: inventory)
        let created = try await CLIRunner.run([
            "rollout", "create", "mixed", inventory.path, "--store", bench.storePath,
        ])
        XCTAssertEqual(created.status, 0, created.stderr)
        let simulated = bench.folder.appendingPathComponent("sim.json")
        try Data(
            """
            {"devices": [{"device": "\(address)", "simulate": {"kind": "secure-app", \
            "firmware_version": "\(GatewayTestBench.installedVersion)"}}]}
            """.utf8
        ).write(to: simulated)
        let gateway = try await CLIRunner.run([
            "gateway", "--store", bench.storePath, "--name", "mixed-gw", "--simulated-devices",
            simulated.path,
            "--poll", "0.2", "--exit-when-idle",
        ])
        XCTAssertEqual(gateway.status, 0, gateway.stderr)
        let store = try bench.openStore()
        let device = try await store.status(of: "mixed").devices[0]
        await store.close()
        XCTAssertEqual(device.device, address)
        XCTAssertEqual(device.result, .completed, "\(device)")
    }
}
