import DFUSupport
import Foundation
import XCTest

/// Debian's `chromium`, headless, driven through the Chrome DevTools protocol over a pipe
/// (`--remote-debugging-pipe`: JSON messages ending in a NUL byte, read from fd 3 and answered
/// on fd 4, which a shell maps to our stdin and stdout). One page, its console errors collected.
public final class HeadlessChromium: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let messages = Locked<[[String: Any]]>([])
    private let profile: URL
    private var nextID = 0
    private var session = ""

    /// nil when chromium is not installed (scripts/install-deps.sh installs it).
    public static var executable: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// The executable; a test skips without it, except under CI, where it fails.
    public static func installed() throws -> String {
        guard let executable else {
            if ProcessInfo.processInfo.environment["CI"] != nil {
                XCTFail("chromium is missing: scripts/install-deps.sh")
            }
            throw XCTSkip("chromium is not installed (scripts/install-deps.sh installs it)")
        }
        return executable
    }

    public init(executable: String) throws {
        profile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chromium-\(UUID().uuidString)")
        let flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-pipe",
            "--window-size=1200,1400", "--user-data-dir=\(profile.path)",
        ]
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec \"$0\" \"$@\" 3<&0 4>&1 >/dev/null </dev/null", executable] + flags
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let messages = messages
        Thread {
            var pending = Data()
            while case let chunk = output.fileHandleForReading.availableData, !chunk.isEmpty {
                pending.append(chunk)
                while let end = pending.firstIndex(of: 0) {
                    let message = pending[pending.startIndex..<end]
                    pending = Data(pending[pending.index(after: end)...])
                    if let object = try? JSONSerialization.jsonObject(with: message) as? [String: Any] {
                        messages.withLock { $0.append(object) }
                    }
                }
            }
        }.start()
    }

    /// Opens a page on `url` and waits for its load event.
    public func open(_ url: String) async throws {
        let target = try await send("Target.createTarget", ["url": "about:blank"], inSession: false)
        let attached = try await send(
            "Target.attachToTarget", ["targetId": target["targetId"] as? String ?? "", "flatten": true],
            inSession: false)
        session = attached["sessionId"] as? String ?? ""
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] { _ = try await send(domain) }
        _ = try await send("Page.navigate", ["url": url])
        try await waitFor("the page's load event") { self.events("Page.loadEventFired").count > 0 }
    }

    /// The value of a JavaScript expression in the page.
    public func evaluate(_ expression: String) async throws -> Any? {
        let answer = try await send("Runtime.evaluate", ["expression": expression, "returnByValue": true])
        return (answer["result"] as? [String: Any])?["value"]
    }

    public func screenshot() async throws -> Data {
        let answer = try await send(
            "Page.captureScreenshot", ["format": "png", "captureBeyondViewport": true])
        return try XCTUnwrap(Data(base64Encoded: answer["data"] as? String ?? ""))
    }

    /// Console errors, uncaught exceptions and the browser's own errors (a refused script, a
    /// resource that failed to load), as text.
    public var consoleErrors: [String] {
        let console = events("Runtime.consoleAPICalled").filter { ($0["type"] as? String) == "error" }
        let thrown = events("Runtime.exceptionThrown")
        let logged = events("Log.entryAdded").compactMap { $0["entry"] as? [String: Any] }
            .filter { ($0["level"] as? String) == "error" }
        return (console + thrown + logged).map { "\($0)" }
    }

    /// Polls `condition` until it holds, failing after `timeout`.
    public func waitFor(
        _ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool
    )
        async throws
    {
        let end = ContinuousClock.now + timeout
        while try await !condition() {
            guard ContinuousClock.now < end else {
                throw ChromiumError("\(what) did not happen within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    public func close() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: profile)
    }

    private func events(_ method: String) -> [[String: Any]] {
        messages.withLock { list in
            list.filter { ($0["method"] as? String) == method }.compactMap { $0["params"] as? [String: Any] }
        }
    }

    private func send(_ method: String, _ params: [String: Any] = [:], inSession: Bool = true) async throws
        -> [String: Any]
    {
        nextID += 1
        let id = nextID
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if inSession { message["sessionId"] = session }
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: message) + Data([0]))
        var answer: [String: Any]?
        try await waitFor("an answer to \(method)") {
            answer = messages.withLock { list in list.first { ($0["id"] as? Int) == id } }
            return answer != nil
        }
        if let error = answer?["error"] { throw ChromiumError("\(method) failed: \(error)") }
        return answer?["result"] as? [String: Any] ?? [:]
    }
}

public struct ChromiumError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
