import Foundation
import TestSupport
import XCTest

/// `dfu-update rollout serve` as users run it: the contract's errors, the warning off loopback,
/// the page's counts against `rollout status --json`, and a clean stop on SIGTERM.
final class RolloutServeCLITests: XCTestCase {
    func testUsageErrorsFollowTheContract() async throws {
        let listen = try await CLIRunner.run(["rollout", "serve", "--listen", "8080", "--json"])
        XCTAssertEqual(listen.status, 64)
        XCTAssertEqual(try listen.errorObject().string("class"), "usage")
        XCTAssertTrue(try listen.errorObject().string("message").contains("--listen 8080 is not HOST:PORT"))

        let token = FileManager.default.temporaryDirectory.appendingPathComponent(
            "token-\(UUID().uuidString)")
        try Data("0123456789abcdef0123".utf8).write(to: token)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: token.path)
        defer { try? FileManager.default.removeItem(at: token) }
        let shared = try await CLIRunner.run([
            "rollout", "serve", "--operator-token-file", token.path, "--json",
        ])
        XCTAssertEqual(shared.status, 64)
        XCTAssertEqual(
            try shared.errorObject().string("message"),
            "--operator-token-file: \(token.path) may be read by others than its owner: chmod 600 it")

        // a folder only its owner may read: the contract's error, not Foundation's "Is a directory"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inFolder = try await CLIRunner.run([
            "rollout", "serve", "--operator-token-file", folder.path, "--json",
        ])
        XCTAssertEqual(inFolder.status, 64, inFolder.stderr)
        XCTAssertEqual(
            try inFolder.errorObject().string("message"),
            "--operator-token-file: \(folder.path) is a folder; name the file in it that holds the secret")
    }

    /// A port another program holds is the contract's error, not NIO's words and exit 1.
    func testAPortInUseIsListenUnavailable() async throws {
        let store = try PageFixture(self).folder.appendingPathComponent("store.sqlite").path
        let result = try await LoopbackPort.occupied { port in
            try await CLIRunner.run([
                "rollout", "serve", "--store", store, "--listen", "127.0.0.1:\(port)", "--json",
            ])
        }
        XCTAssertEqual(result.status, 64, result.stderr)
        let error = try result.errorObject()
        XCTAssertEqual(try error.string("class"), "listen_unavailable")
        let message = try error.string("message")
        XCTAssertTrue(message.contains("the port is in use"), message)
        XCTAssertFalse(result.stderr.contains("errno"), result.stderr)

        // an address of no machine here (TEST-NET-1): its error alone, no warning of listening there
        let foreign = try await CLIRunner.run([
            "rollout", "serve", "--store", store, "--listen", "192.0.2.1:0", "--json",
        ])
        XCTAssertEqual(foreign.status, 64, foreign.stderr)
        let said = try foreign.errorObject().string("message")
        XCTAssertTrue(said.contains("it is not an address of this machine"), said)
        XCTAssertEqual(foreign.stderr, "")
    }

    func testServesTheCountsStatusReportsAndStopsOnSIGTERM() async throws {
        let page = try PageFixture(self)
        try await page.seed("spring", devices: 20, completed: 0..<7, failed: 7..<9, held: 9..<12)
        let store = page.folder.appendingPathComponent("store.sqlite").path
        let server = try BackgroundProcess(
            CLIRunner.executableURL,
            ["rollout", "serve", "--store", store, "--listen", "0.0.0.0:0", "--json"])
        let line = try await server.line { $0.contains("listening") }.text
        let url = try XCTUnwrap(
            try JSONObject(JSONSerialization.jsonObject(with: Data(line.utf8))).string("url"))
        let port = try XCTUnwrap(URL(string: url)?.port)
        XCTAssertTrue(server.standardError.contains("warning: listening on 0.0.0.0:"), server.standardError)

        let html = try await PageClient().get("http://127.0.0.1:\(port)/rollouts/spring").body
        let status = try await CLIRunner.run(["rollout", "status", "spring", "--store", store, "--json"])
        let summary = try XCTUnwrap(try status.jsonLines().first).object("summary")
        for state in ["completed", "failed", "skipped", "aborted"] {
            XCTAssertTrue(html.contains("<dd data-count=\"\(state)\">\(try summary.int(state))</dd>"), state)
        }
        let waiting = try summary.int("pending")
        XCTAssertEqual(waiting, 11)
        XCTAssertTrue(
            html.contains("<dd data-count=\"in_progress\">3</dd><"), "pending in status: held or waiting")
        XCTAssertTrue(html.contains("<dd data-count=\"pending\">8</dd>"))

        server.signal(SIGTERM)
        let exit = try await server.wait(within: .seconds(30))
        XCTAssertEqual(exit, 0, server.standardError)
    }

    func testAStopEndsOpenEventStreamsAtOnce() async throws {
        let page = try PageFixture(self)
        try await page.seed("spring", devices: 2, completed: 0..<1)
        let store = page.folder.appendingPathComponent("store.sqlite").path
        let server = try BackgroundProcess(
            CLIRunner.executableURL,
            ["rollout", "serve", "--store", store, "--listen", "127.0.0.1:0", "--json"])
        let line = try await server.line { $0.contains("listening") }.text
        let url = try XCTUnwrap(
            try JSONObject(JSONSerialization.jsonObject(with: Data(line.utf8))).string("url"))
        let stream = try LoopbackHTTPStream(
            port: try XCTUnwrap(URL(string: url)?.port), path: "/rollouts/spring/events")
        XCTAssertTrue(try stream.read(until: "data: ").contains("text/event-stream"))

        // a stream lasts 20 s unless the stop ends it
        let stopped = ContinuousClock.now
        server.signal(SIGTERM)
        let exit = try await server.wait(within: .seconds(10))
        XCTAssertEqual(exit, 0, server.standardError)
        XCTAssertLessThan(ContinuousClock.now - stopped, .seconds(10))
        _ = try stream.readToEnd()
    }
}
