import DFURollout
import FirmwareUpdate
import Foundation
import NordicDFU
import XCTest

@testable import RolloutPage

/// What the page renders from a rollout's status: counts, filters, pages, escaping, the plot.
final class RolloutPageRenderingTests: XCTestCase {
    private func failedDevice(_ name: String, error: String, gateway: String = "gw-1") -> DeviceStatus {
        DeviceStatus(
            device: name, result: .failed, gateway: gateway, attempts: 1, error: error,
            report: Data(#"{"error": {"name": "deviceDisconnected"}}"#.utf8))
    }

    func testEscapesEveryCharacterThatEndsTextOrAnAttribute() {
        XCTAssertEqual(
            HTMLText.escape(#"<a href="x">'&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        XCTAssertEqual(HTMLText.queryValue("a b&c<"), "a%20b%26c%3C")
    }

    func testRendersStoreTextEscaped() {
        let device = failedDevice(
            "<script>alert(1)</script>", error: "<img src=x onerror=alert(2)>", gateway: "gw\"><b>")
        let listing = DeviceListing(
            state: .halted,
            counts: [.init(gateway: "gw\"><b>", standing: .failed, errorClass: "<i>", devices: 1)],
            matching: 1, devices: [device])
        let html = RolloutDetailPage.html(
            RolloutView(rollout: "r<1>", listing: listing, query: DeviceQuery()), plot: "", controls: "")
        for raw in ["<script>alert", "<img src=x", "gw\"><b>", "r<1>", "<i>"] {
            XCTAssertFalse(html.contains(raw), raw)
        }
        XCTAssertTrue(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        XCTAssertTrue(html.contains("&lt;img src=x onerror=alert(2)&gt;"))
    }

    func testCountsByStandingAndGatewayAndErrorClass() {
        let listing = DeviceListing(
            state: .active,
            counts: [
                .init(gateway: "gw-b", standing: .completed, errorClass: nil, devices: 2),
                .init(gateway: "gw-a", standing: .completed, errorClass: nil, devices: 2),
                .init(gateway: "gw-a", standing: .failed, errorClass: "deviceDisconnected", devices: 2),
                .init(gateway: "gw-b", standing: .aborted, errorClass: "unknown", devices: 1),
                .init(gateway: "gw-b", standing: .inProgress, errorClass: nil, devices: 4),
                .init(gateway: nil, standing: .pending, errorClass: nil, devices: 9),
            ], matching: 1, devices: [failedDevice("dev-0", error: "dev-0: the link dropped")])
        let view = RolloutView(rollout: "spring", listing: listing, query: DeviceQuery())
        XCTAssertEqual(view.counts[.completed], 4)
        XCTAssertEqual(view.counts[.inProgress], 4)
        XCTAssertEqual(view.total, 20)
        XCTAssertEqual(view.done, 7)
        XCTAssertEqual(view.gateways.map(\.gateway), ["gw-a", "gw-b"])
        XCTAssertEqual(view.gateways[1].counts, [.completed: 2, .aborted: 1, .inProgress: 4])
        XCTAssertEqual(view.errorClasses.map(\.errorClass), ["deviceDisconnected", "unknown"])
        XCTAssertEqual(view.rows.first?.failure?.advice, DFUError.deviceDisconnected.advice)
    }

    func testPagesAHundredThousandMatchingDevices() {
        let listing = DeviceListing(state: .active, counts: [], matching: 100_000, devices: [])
        let view = RolloutView(rollout: "big", listing: listing, query: DeviceQuery(state: .pending, page: 2))
        XCTAssertEqual(view.pages, 1000)
        XCTAssertEqual(DeviceQuery(page: 3).listing, DeviceListingQuery(offset: 200, limit: 100))
        let html = DeviceTable.pager(view)
        XCTAssertTrue(html.contains("href=\"?state=pending&amp;page=1\">previous"), html)
        XCTAssertTrue(html.contains("href=\"?state=pending&amp;page=3\">next"), html)
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
