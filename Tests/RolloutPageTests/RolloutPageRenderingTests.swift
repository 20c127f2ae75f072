import DFURollout
import Foundation
import NordicDFU
import XCTest

@testable import RolloutPage

/// What the page renders from a rollout's status: counts, filters, pages, escaping, the plot.
final class RolloutPageRenderingTests: XCTestCase {
    private func status(devices: Int, failedEvery: Int = 0, gateway: (Int) -> String = { _ in "gw-1" })
        -> RolloutStatus
    {
        let list = (0..<devices).map { index in
            let failed = failedEvery > 0 && index % failedEvery == 0
            return DeviceStatus(
                device: "dev-\(index)", result: failed ? .failed : (index % 2 == 1 ? .completed : nil),
                gateway: gateway(index), held: index % 2 == 0 && !failed, attempts: 1,
                error: failed ? "dev-\(index): the link dropped; move closer" : nil,
                report: failed ? Data(#"{"error": {"name": "deviceDisconnected"}}"#.utf8) : nil)
        }
        return RolloutStatus(
            rollout: "spring", state: .active, canary: 0, maxFailures: nil, concurrency: 4, devices: list,
            gateways: [])
    }

    func testEscapesEveryCharacterThatEndsTextOrAnAttribute() {
        XCTAssertEqual(
            HTMLText.escape(#"<a href="x">'&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        XCTAssertEqual(HTMLText.queryValue("a b&c<"), "a%20b%26c%3C")
    }

    func testRendersStoreTextEscaped() {
        let device = DeviceStatus(
            device: "<script>alert(1)</script>", result: .failed, gateway: "gw\"><b>", attempts: 1,
            error: "<img src=x onerror=alert(2)>", report: nil)
        let status = RolloutStatus(
            rollout: "r<1>", state: .halted, canary: 0, maxFailures: nil, concurrency: 1, devices: [device],
            gateways: [])
        let html = RolloutDetailPage.html(RolloutView(status, query: DeviceQuery()), plot: "", controls: "")
        for raw in ["<script>alert", "<img src=x", "gw\"><b>", "r<1>"] {
            XCTAssertFalse(html.contains(raw), raw)
        }
        XCTAssertTrue(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        XCTAssertTrue(html.contains("&lt;img src=x onerror=alert(2)&gt;"))
    }

    func testCountsByStateAndGatewayAndErrorClass() {
        let view = RolloutView(
            status(devices: 10, failedEvery: 5, gateway: { $0 < 4 ? "gw-a" : "gw-b" }), query: DeviceQuery())
        XCTAssertEqual(view.counts[.failed], 2)
        XCTAssertEqual(view.counts[.completed], 4)
        XCTAssertEqual(view.counts[.inProgress], 4)
        XCTAssertEqual(view.done, 6)
        XCTAssertEqual(view.gateways.map(\.gateway), ["gw-a", "gw-b"])
        XCTAssertEqual(view.gateways[0].counts[.completed], 2)
        XCTAssertEqual(view.errorClasses.map(\.errorClass), ["deviceDisconnected"])
        XCTAssertEqual(view.rows.first?.failure?.advice, NordicDFU_advice("deviceDisconnected"))
    }

    func testFiltersAndPagesAHundredThousandDevices() {
        let big = status(devices: 100_000)
        let second = RolloutView(big, query: DeviceQuery(state: .completed, page: 2))
        XCTAssertEqual(second.matching, 50_000)
        XCTAssertEqual(second.pages, 500)
        XCTAssertEqual(second.rows.count, 100)
        XCTAssertEqual(second.rows.first?.status.device, "dev-201")
        let last = RolloutView(big, query: DeviceQuery(state: .completed, page: 500))
        XCTAssertEqual(last.rows.last?.status.device, "dev-99999")
        let beyond = RolloutView(big, query: DeviceQuery(page: 9999))
        XCTAssertTrue(beyond.rows.isEmpty)
        let byGateway = RolloutView(big, query: DeviceQuery(gateway: "elsewhere"))
        XCTAssertEqual(byGateway.matching, 0)
    }

    func testQueryReadsFiltersAndKeepsThemInPageLinks() {
        let query = DeviceQuery(query: FormFields.parse("state=failed&gateway=gw+1%26x&error=&page=-3"))
        XCTAssertEqual(query, DeviceQuery(state: .failed, gateway: "gw 1&x", errorClass: nil, page: 1))
        XCTAssertEqual(query.link(page: 2), "?state=failed&amp;gateway=gw%201%26x&amp;page=2")
        XCTAssertEqual(DeviceQuery(query: ["state": "bogus", "page": "x"]), DeviceQuery())
    }

    func testPlotDrawsDevicesPerMinuteBetweenSamples() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let samples = [
            ThroughputRecorder.Sample(time: start, done: 0),
            ThroughputRecorder.Sample(time: start + 60, done: 30),
            ThroughputRecorder.Sample(time: start + 120, done: 90),
        ]
        let svg = ThroughputPlot.svg(samples)
        XCTAssertTrue(svg.hasPrefix("<svg id=\"throughput\""))
        XCTAssertTrue(svg.contains(">60/min<"), svg)
        XCTAssertTrue(svg.contains("points=\"320.0,80.0 604.0,36.0\""), svg)
        XCTAssertTrue(ThroughputPlot.svg([samples[0]]).contains("Throughput appears"))
    }

    func testRecorderKeepsOneSampleForEachSpacing() async {
        let recorder = ThroughputRecorder()
        let start = Date(timeIntervalSince1970: 0)
        _ = await recorder.record("r", done: 0, at: start)
        _ = await recorder.record("r", done: 1, at: start + 1)
        _ = await recorder.record("r", done: 2, at: start + 2)
        let samples = await recorder.record("r", done: 5, at: start + 11)
        XCTAssertEqual(samples.map(\.done), [0, 2, 5])
    }

    func testListenAddressParsesAndKnowsLoopback() {
        XCTAssertEqual(ListenAddress("127.0.0.1:8080")?.isLoopback, true)
        XCTAssertEqual(ListenAddress("[::1]:80")?.host, "::1")
        XCTAssertEqual(ListenAddress("[::1]:80")?.description, "[::1]:80")
        XCTAssertEqual(ListenAddress("0.0.0.0:8080")?.isLoopback, false)
        XCTAssertNil(ListenAddress("localhost"))
        XCTAssertNil(ListenAddress("127.0.0.1:70000"))
        XCTAssertNil(ListenAddress(":8080"))
    }
}

private func NordicDFU_advice(_ name: String) -> String? {
    DFUError.allCases.first { $0.name == name }?.advice
}
