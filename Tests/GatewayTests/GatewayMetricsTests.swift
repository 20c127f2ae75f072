import DFURollout
import Foundation
import MetricsEndpoint
import MetricsTestKit
import Prometheus
import XCTest

/// A gateway's metrics as Prometheus sees them: Debian's real server scrapes an in-process
/// gateway's `/metrics` during a rollout, and its counts match the store's status (what
/// `rollout status --json` prints).
final class GatewayMetricsTests: XCTestCase {
    func testPrometheusScrapesAGatewayDuringARollout() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout(
            "scraped", devices: 6, package: "secure/secure_app_100k_hex_signed_bootval_ecdsa.zip",
            concurrency: 2)
        let registry = PrometheusCollectorRegistry()
        let server = try await MetricsServer.bind(
            MetricsAddress(host: "127.0.0.1", port: 0), registry: registry)
        let serving = Task { try await server.run() }
        let prometheus = try await ScratchPrometheus(scraping: server.port, test: self)
        // its scrapes run before the rollout starts
        let up = try await prometheus.waitFor("up{job=\"gateway\"}", toBe: 1)
        XCTAssertEqual(up, 1, "Prometheus did not scrape the gateway's /metrics")
        // device 5 cannot be connected to: one failure, of a device never probed (family unknown)
        let gateway = try bench.gateway(
            "scraped-gw", sees: Array(0..<6), realTimeFactor: 1, faults: [5: ["reject-connect=1000"]]
        ) {
            $0.metrics = PrometheusMetricsFactory(registry: registry)
            $0.concurrency = 2
        }
        let running = Task { await gateway.run() }
        // scraped while it works: a claim counted before the rollout ends
        let claimedWhileRunning = try await prometheus.waitFor(
            "sum(dfu_gateway_claims_total) > bool 0", toBe: 1, within: .seconds(60))
        let stillRunning = gateway.events.withLock {
            !$0.contains { if case .idle = $0.event { true } else { false } }
        }
        XCTAssertEqual(claimedWhileRunning, 1)
        XCTAssertTrue(stillRunning, "the rollout ended before Prometheus scraped a claim")
        await running.value
        XCTAssertNil(gateway.failure.withLock { $0 })

        let store = try bench.openStore()
        let status = try await store.status(of: "scraped")
        await store.close()
        let completed = status.devices.filter { $0.result == .completed }.count
        let failed = status.devices.filter { $0.result == .failed }.count
        XCTAssertEqual([completed, failed], [5, 1])
        // the last scrape after the end has every count
        let seen = try await prometheus.waitFor(
            "dfu_updates_completed_total{family=\"secure\"}", toBe: Double(completed), within: .seconds(30))
        XCTAssertEqual(seen, Double(completed))
        let failures = try await prometheus.query("dfu_updates_failed_total")
        XCTAssertEqual(failures.map(\.value).reduce(0, +), Double(failed))
        XCTAssertEqual(failures.first?.labels["family"], "unknown")
        XCTAssertEqual(failures.first?.labels["error_class"], "failedToConnect")
        try await assertValue(prometheus, "sum(dfu_updates_started_total)", Double(status.devices.count))
        try await assertValue(
            prometheus, "sum(dfu_gateway_claims_total)", Double(status.devices.map(\.attempts).reduce(0, +)))
        try await assertValue(prometheus, "dfu_gateway_devices_in_reach", 6)
        try await assertValue(prometheus, "dfu_store_reachable", 1)
        try await assertValue(prometheus, "up{job=\"gateway\"}", 1)
        try await assertValue(prometheus, "dfu_link_rate_bytes_per_second", 0)
        let sent = try await prometheus.value("sum(dfu_bytes_sent_total)")
        XCTAssertGreaterThanOrEqual(sent ?? 0, Double(5 * 100_000), "every completed device got its 100 kB")
        let claimCalls = try await prometheus.value("dfu_store_call_duration_seconds_count{call=\"claim\"}")
        XCTAssertGreaterThan(claimCalls ?? 0, 0, "the store's claim latency is a histogram")
        serving.cancel()
        try await serving.value
    }

    /// A store cut off reads as unreachable, and the lease the gateway then loses is counted.
    func testACutOffStoreReadsUnreachableAndItsLeaseLost() async throws {
        let bench = try GatewayTestBench(self)
        try await bench.createRollout(
            "cut", devices: 1, package: "secure/secure_app_100k_hex_signed_bootval_ecdsa.zip")
        let metrics = TestMetrics()
        let cut = CutStore(try bench.openStore())
        let gateway = try bench.gateway("gw1", sees: [0], realTimeFactor: 1, store: cut) {
            $0.lease = .seconds(2)
            $0.exitWhenIdle = false
            $0.metrics = metrics
        }
        let running = Task { await gateway.run() }
        _ = try await gateway.firstClaim()
        XCTAssertEqual(metrics.counterTotal(label: "dfu_gateway_claims_total"), 1)
        XCTAssertEqual(try metrics.expectGauge("dfu_store_reachable").lastValue, 1)
        XCTAssertGreaterThan(metrics.timers(label: "dfu_store_call_duration_seconds").count, 0)
        cut.cut()
        _ = try await gateway.poll("lost its lease") { gateway.leaseLost().first }
        running.cancel()
        await running.value
        XCTAssertEqual(try metrics.expectGauge("dfu_store_reachable").lastValue, 0)
        XCTAssertEqual(metrics.counterTotal(label: "dfu_gateway_lease_losses_total"), 1)
        XCTAssertEqual(metrics.counterTotal(label: "dfu_updates_aborted_total"), 1)
    }

    private func assertValue(
        _ prometheus: ScratchPrometheus, _ expression: String, _ expected: Double, line: UInt = #line
    ) async throws {
        let value = try await prometheus.value(expression)
        XCTAssertEqual(value, expected, expression, line: line)
    }
}
