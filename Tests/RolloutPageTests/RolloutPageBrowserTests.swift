import DFURollout
import Foundation
import TestSupport
import XCTest

/// The page in a real browser: headless Chromium opens a seeded rollout and one in progress,
/// reads the counts from the DOM, sees them change as a gateway reports devices, finds no
/// console error, and saves a screenshot (docs/rollout-page.md shows it).
final class RolloutPageBrowserTests: XCTestCase {
    func testChromiumShowsCountsAndLiveUpdatesWithoutConsoleErrors() async throws {
        let executable = try HeadlessChromium.installed()
        let page = try PageFixture(self)
        let names: (Int) -> String = { $0 == 3 ? PageFixture.hostileDevice : "shelf-label-\($0)" }
        try await page.seed("seeded", devices: 40, names: names, completed: 0..<3, failed: 3..<5)
        try await page.report("seeded", (5..<30).map(names), result: .completed, gateway: "gw-2")
        try await page.seed("in-progress", devices: 30, names: names, completed: 0..<6, held: 6..<10)
        try await page.start(liveInterval: .milliseconds(250))
        let browser = try HeadlessChromium(executable: executable)
        defer { browser.close() }

        try await browser.open(page.baseURL + "/rollouts/seeded")
        let seeded = try await counts(browser)
        XCTAssertEqual(seeded, ["completed": "28", "failed": "2", "pending": "10", "in_progress": "0"])
        let deviceText =
            try await browser.evaluate("document.getElementById('devices').textContent") as? String
        XCTAssertTrue(
            deviceText?.contains(PageFixture.hostileDevice) ?? false, "the name shows as text, not markup")
        let scripts = try await browser.evaluate("document.scripts.length") as? Int
        XCTAssertEqual(scripts, 1, "only /live.js runs")

        try await browser.open(page.baseURL + "/rollouts/in-progress")
        _ = try await browser.evaluate("window.loadedOnce = true")
        let before = try await counts(browser)
        XCTAssertEqual(before["completed"], "6")
        XCTAssertEqual(before["in_progress"], "4")
        try await page.finishHeld("in-progress", result: .completed)
        try await page.report("in-progress", (10..<12).map(names), result: .failed)
        try await browser.waitFor("the live update of the counts") {
            try await self.counts(browser)["completed"] == "10"
        }
        let after = try await counts(browser)
        XCTAssertEqual(after, ["completed": "10", "failed": "2", "pending": "18", "in_progress": "0"])
        let done = try await browser.evaluate("document.getElementById('done').textContent") as? String
        XCTAssertEqual(done, "12")
        let samePage = try await browser.evaluate("window.loadedOnce === true") as? Bool
        XCTAssertEqual(samePage, true, "updated in place (the scroll position kept), not by reloading")
        try await browser.waitFor("the device list brought up to date") {
            let list = try await browser.evaluate("document.getElementById('devices').textContent") as? String
            return list?.contains("shelf-label-6completed") ?? false
        }
        XCTAssertEqual(browser.consoleErrors, [])

        let screenshot = try await browser.screenshot()
        let path =
            ProcessInfo.processInfo.environment["DFU_PAGE_SCREENSHOT"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("rollout-page.png").path
        try screenshot.write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(Array(screenshot.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "a PNG")
    }

    /// The page's count per state, as the DOM holds them now.
    private func counts(_ browser: HeadlessChromium) async throws -> [String: String] {
        let wanted = ["completed", "failed", "pending", "in_progress"]
        let json = try await browser.evaluate(
            "JSON.stringify(Object.fromEntries(\(wanted).map(s => [s, document.querySelector('[data-count=' + s + ']').textContent])))"
        )
        let data = Data((json as? String ?? "{}").utf8)
        return try JSONSerialization.jsonObject(with: data) as? [String: String] ?? [:]
    }
}
