import DFURollout
import Foundation
import Logging
import RolloutPage
import TestSupport
import XCTest

/// The rollout page while a gateway in process updates simulated devices: headless Chromium
/// sees the counts go up through the live view, to the rollout's end, without console errors.
final class RolloutPageGatewayTests: XCTestCase {
    func testThePageFollowsAGatewayToTheEndOfTheRollout() async throws {
        let executable = try HeadlessChromium.installed()
        let bench = try GatewayTestBench(self)
        try await bench.createRollout("hall-a", devices: 6, concurrency: 2)
        let store = try bench.openStore()
        let server = RolloutPageServer(
            store: store, storeName: bench.storePath, token: nil, liveInterval: .milliseconds(200))
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let app = server.application(listen: ListenAddress("127.0.0.1:0")!, logger: Logger(label: "page")) {
            port.yield($0)
        }
        let serving = Task { try await app.run() }
        defer { serving.cancel() }
        var iterator = ports.makeAsyncIterator()
        let first = await iterator.next()
        let listening = try XCTUnwrap(first)
        let browser = try HeadlessChromium(executable: executable)
        defer { browser.close() }
        try await browser.open("http://127.0.0.1:\(listening)/rollouts/hall-a")
        let before = try await browser.evaluate("document.getElementById('done').textContent") as? String
        XCTAssertEqual(before, "0")

        let gateway = try bench.gateway("gw-hall-a", sees: Array(0..<6), realTimeFactor: 0.2)
        await gateway.run()
        XCTAssertEqual(gateway.reported().count, 6)
        try await browser.waitFor("the page showing the end of the rollout") {
            try await browser.evaluate("document.getElementById('state').textContent") as? String
                == "completed"
        }
        let completed = try await browser.evaluate(
            "document.querySelector('[data-count=completed]').textContent")
        XCTAssertEqual(completed as? String, "6")
        let status = try await store.status(of: "hall-a")
        XCTAssertEqual(status.summary.results[.completed], 6, "the page says what the store says")
        XCTAssertEqual(browser.consoleErrors, [])
        await store.close()
    }
}
