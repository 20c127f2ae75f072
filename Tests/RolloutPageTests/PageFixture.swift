import DFURollout
import Foundation
import Logging
import XCTest

@testable import RolloutPage

/// An embedded store with rollouts as gateways leave them, and the page's server on it, on a
/// free loopback port for the length of a test.
final class PageFixture: @unchecked Sendable {
    static let package = RolloutPackage(
        name: "app.zip", bytes: Data((0..<1024).map { UInt8(truncatingIfNeeded: $0) }))
    /// A device name and an error message that would run a script if the page did not escape them.
    static let hostileDevice = "<script>alert(1)</script>"
    static let hostileError = "dev: <img src=x onerror=alert(2)>; try again"

    let folder: URL
    let store: EmbeddedRolloutStore
    private var serverTask: Task<Void, any Error>?
    private(set) var port = 0
    /// The claims `seed` took and did not report, by rollout.
    private var held: [String: [DeviceClaim]] = [:]

    init(_ test: XCTestCase) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rollout-page-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = try EmbeddedRolloutStore(path: folder.appendingPathComponent("store.sqlite").path)
        test.addTeardownBlock { [self] in
            serverTask?.cancel()
            _ = await serverTask?.result
            await store.close()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// A rollout of `devices` devices; each index in `completed` and `failed` reported so by
    /// `gateway`, each in `held` claimed and not reported.
    func seed(
        _ name: String, devices: Int,
        names: (Int) -> String = { String(format: "C0:DE:00:00:%02X:%02X", $0 / 256, $0 % 256) },
        completed: Range<Int> = 0..<0, failed: Range<Int> = 0..<0, held: Range<Int> = 0..<0,
        gateway: String = "gw-1"
    ) async throws {
        let all = (0..<devices).map { RolloutDevice(device: names($0), packageSHA256: Self.package.sha256) }
        try await store.create(RolloutSpec(name: name, packages: [Self.package], devices: all))
        try await report(name, completed.map(names), result: .completed, gateway: gateway)
        try await report(name, failed.map(names), result: .failed, gateway: gateway)
        self.held[name] = try await store.claim(
            name, for: gateway, among: Set(held.map(names)), limit: held.count, lease: .seconds(600))
    }

    /// Reports the devices `seed` left held, as their gateway would when their updates end.
    func finishHeld(_ rollout: String, result: DeviceResult) async throws {
        for claim in held.removeValue(forKey: rollout) ?? [] {
            try await store.report(claim, DeviceOutcome(result: result))
        }
    }

    /// Claims and reports `devices` as a gateway would.
    func report(_ rollout: String, _ devices: [String], result: DeviceResult, gateway: String = "gw-1")
        async throws
    {
        guard !devices.isEmpty else { return }
        let claims = try await store.claim(
            rollout, for: gateway, among: Set(devices), limit: devices.count, lease: .seconds(600))
        for claim in claims {
            let failed = result == .failed
            let report =
                failed
                ? Data(#"{"error": {"code": 4, "name": "deviceDisconnected", "message": "x"}}"#.utf8) : nil
            try await store.report(
                claim, DeviceOutcome(result: result, error: failed ? Self.hostileError : nil, report: report))
        }
    }

    /// Starts the page's server on a free port.
    /// `streamLifetime`: how long one event stream lasts (short for a plain HTTP client).
    func start(
        token: String? = nil, liveInterval: Duration = .milliseconds(200),
        streamLifetime: Duration = .seconds(5)
    ) async throws {
        let server = RolloutPageServer(
            store: store, storeName: "test store", token: token.map(OperatorToken.init(secret:)),
            liveInterval: liveInterval,
            streamLifetime: streamLifetime)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = server.application(listen: ListenAddress("127.0.0.1:0")!, logger: Logger(label: "test")) {
            continuation.yield($0)
        }
        serverTask = Task { try await app.run() }
        for await port in ports {
            self.port = port
            break
        }
    }
}
