import DFURollout
import Foundation
import XCTest

@testable import RolloutPage

/// The page's server over HTTP on an embedded store: what it serves, and who may steer.
final class RolloutPageServerTests: XCTestCase {
    static let token = "0123456789abcdef0123456789abcdef"
    let client = PageClient()

    func testServesTheListAndARolloutWithFiltersAndSafeHeaders() async throws {
        let page = try PageFixture(self)
        try await page.seed("spring", devices: 12, completed: 0..<5, failed: 5..<7, held: 7..<9)
        try await page.start()
        let list = try await client.get(page.baseURL + "/")
        XCTAssertEqual(list.status, 200)
        XCTAssertTrue(list.body.contains("<td>7 of 12</td>"), list.body)
        let rollout = try await client.get(page.baseURL + "/rollouts/spring")
        XCTAssertEqual(rollout.status, 200)
        XCTAssertTrue(rollout.body.contains("<dd data-count=\"completed\">5</dd>"))
        XCTAssertTrue(rollout.body.contains("<dd data-count=\"in_progress\">2</dd>"))
        XCTAssertTrue(rollout.body.contains("<dd data-count=\"pending\">3</dd>"))
        XCTAssertTrue(rollout.body.contains("Read-only"))
        XCTAssertEqual(rollout.headers["content-security-policy"], PageLayout.contentSecurityPolicy)
        let failed = try await client.get(page.baseURL + "/rollouts/spring?state=failed")
        XCTAssertTrue(failed.body.contains("2 devices match; page 1 of 1."), failed.body)
        XCTAssertTrue(failed.body.contains("deviceDisconnected</span>: dev: &lt;img src=x"))
        let missing = try await client.get(page.baseURL + "/rollouts/autumn")
        XCTAssertEqual(missing.status, 404)
        XCTAssertTrue(missing.body.contains("The store has no rollout named autumn"))
    }

    func testReadOnlyWithoutAToken() async throws {
        let page = try PageFixture(self)
        try await page.seed("spring", devices: 2)
        try await page.start()
        let pause = try await client.post(page.baseURL + "/rollouts/spring/pause", form: [:])
        XCTAssertEqual(pause.status, 403)
        let login = try await client.post(page.baseURL + "/login", form: ["token": Self.token])
        XCTAssertEqual(login.status, 403)
        let state = try await page.store.status(of: "spring").summary.state
        XCTAssertEqual(state, .active)
    }

    func testSteersOnlyWithTheTokensSessionAndItsCSRFValue() async throws {
        let page = try PageFixture(self)
        try await page.seed("spring", devices: 2)
        try await page.start(token: Self.token)
        let wrong = try await client.post(page.baseURL + "/login", form: ["token": "guess"])
        XCTAssertEqual(wrong.status, 403)
        let login = try await client.post(
            page.baseURL + "/login", form: ["token": Self.token, "next": "/rollouts/spring"],
            origin: page.baseURL)
        XCTAssertEqual(login.status, 303)
        XCTAssertEqual(login.headers["location"], "/rollouts/spring")
        let setCookie = try XCTUnwrap(login.headers["set-cookie"])
        XCTAssertTrue(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), setCookie)
        let cookie = String(setCookie.prefix { $0 != ";" })
        let rollout = try await client.get(page.baseURL + "/rollouts/spring", cookie: cookie)
        let csrf = try XCTUnwrap(rollout.body.firstMatch(of: /name="csrf" value="([0-9a-f]{64})"/)?.1)

        let noCSRF = try await client.post(page.baseURL + "/rollouts/spring/pause", form: [:], cookie: cookie)
        XCTAssertEqual(noCSRF.status, 403, "a form without the session's CSRF value")
        let noSession = try await client.post(
            page.baseURL + "/rollouts/spring/pause", form: ["csrf": String(csrf)])
        XCTAssertEqual(noSession.status, 403, "the CSRF value without the session")
        let elsewhere = try await client.post(
            page.baseURL + "/rollouts/spring/pause", form: ["csrf": String(csrf)], cookie: cookie,
            origin: "http://evil.example")
        XCTAssertEqual(elsewhere.status, 403, "a form from another site")
        var state = try await page.store.status(of: "spring").summary.state
        XCTAssertEqual(state, .active)

        let pause = try await client.post(
            page.baseURL + "/rollouts/spring/pause", form: ["csrf": String(csrf)], cookie: cookie,
            origin: page.baseURL)
        XCTAssertEqual(pause.status, 303)
        state = try await page.store.status(of: "spring").summary.state
        XCTAssertEqual(state, .paused)
        let cancel = try await client.post(
            page.baseURL + "/rollouts/spring/cancel", form: ["csrf": String(csrf)], cookie: cookie)
        XCTAssertEqual(cancel.status, 303)
        let resume = try await client.post(
            page.baseURL + "/rollouts/spring/resume", form: ["csrf": String(csrf)], cookie: cookie)
        XCTAssertEqual(resume.status, 409)
        XCTAssertTrue(resume.body.contains("Rollout spring is cancelled: it cannot resume now."), resume.body)
    }

    func testEventsCarryTheCountsAsTheyChange() async throws {
        let page = try PageFixture(self)
        try await page.seed("spring", devices: 4, completed: 0..<1)
        try await page.start(streamLifetime: .milliseconds(100))
        let first = try await client.firstEvent(page.baseURL + "/rollouts/spring/events")
        XCTAssertTrue(first.contains(#""done":1"#), first)
        try await page.report("spring", ["C0:DE:00:00:00:01", "C0:DE:00:00:00:02"], result: .completed)
        let next = try await client.firstEvent(page.baseURL + "/rollouts/spring/events")
        XCTAssertTrue(next.contains(#""done":3"#), next)
        XCTAssertTrue(next.contains(#""state":"active""#), next)
    }
}
