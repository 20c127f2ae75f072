import Foundation
import TestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Debian's `prometheus` server on loopback, with a scratch configuration and data folder,
/// scraping one target every second; asked through its HTTP API, stopped by its pid.
final class ScratchPrometheus: Sendable {
    static let executable = URL(fileURLWithPath: "/usr/bin/prometheus")

    let process: BackgroundProcess
    let port: Int

    /// Starts it scraping `http://127.0.0.1:<target>/metrics` and waits until it is ready; the
    /// test's teardown stops it and removes its folder.
    init(scraping target: Int, test: XCTestCase) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw GatewayTestError(description: "no /usr/bin/prometheus: run scripts/install-deps.sh")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "prometheus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let configuration = folder.appendingPathComponent("prometheus.yml")
        try """
        global:
          scrape_interval: 1s
          scrape_timeout: 1s
        scrape_configs:
          - job_name: gateway
            static_configs:
              - targets: ["127.0.0.1:\(target)"]
        """.write(to: configuration, atomically: true, encoding: .utf8)
        port = try LoopbackPort.free()
        process = try BackgroundProcess(
            Self.executable,
            [
                "--config.file=\(configuration.path)",
                "--storage.tsdb.path=\(folder.appendingPathComponent("data").path)",
                "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
            ])
        let process = process
        test.addTeardownBlock {
            process.signal(SIGTERM)
            _ = try? await process.wait(within: .seconds(30))
            try? FileManager.default.removeItem(at: folder)
        }
        try await waitUntilReady()
    }

    private func waitUntilReady() async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        let ready = URL(string: "http://127.0.0.1:\(port)/-/ready")!
        while ContinuousClock.now < deadline {
            if let (_, response) = try? await URLSession.shared.data(from: ready),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw GatewayTestError(
            description:
                "prometheus (pid \(process.pid)) not ready within 60 s: \(process.standardError.suffix(2000))"
        )
    }

    /// An instant query's samples: each series' labels and value.
    func query(_ expression: String) async throws -> [(labels: [String: String], value: Double)] {
        var url = URLComponents(string: "http://127.0.0.1:\(port)/api/v1/query")!
        url.queryItems = [URLQueryItem(name: "query", value: expression)]
        let (data, _) = try await URLSession.shared.data(from: url.url!)
        guard let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            answer["status"] as? String == "success", let body = answer["data"] as? [String: Any],
            let results = body["result"] as? [[String: Any]]
        else {
            throw GatewayTestError(
                description: "prometheus answered \(String(decoding: data, as: UTF8.self))")
        }
        return results.map { result in
            let labels = result["metric"] as? [String: String] ?? [:]
            let value = (result["value"] as? [Any])?.last as? String
            return (labels, value.flatMap(Double.init) ?? .nan)
        }
    }

    /// The single value of `expression` (a sum, say); nil while it has no sample.
    func value(_ expression: String) async throws -> Double? {
        try await query(expression).first?.value
    }

    /// Polls `expression` every 200 ms until its value is `expected`, for at most `timeout`;
    /// returns the last value seen.
    @discardableResult
    func waitFor(_ expression: String, toBe expected: Double, within timeout: Duration = .seconds(30))
        async throws -> Double?
    {
        let deadline = ContinuousClock.now + timeout
        var last: Double?
        while ContinuousClock.now < deadline {
            last = try await value(expression)
            if last == expected { return last }
            try await Task.sleep(for: .milliseconds(200))
        }
        return last
    }
}
