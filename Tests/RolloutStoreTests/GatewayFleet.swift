import Foundation
import PostgresNIO
import RolloutStoreTesting
import TestSupport
import XCTest

/// `dfu-update gateway` processes on the scratch PostgreSQL server, each as a login role of its
/// own in `dfu_rollout_gateway`, each simulating the devices it "sees" (a device two gateways
/// see has the same address in both); the rollout created through the CLI by an operator role.
struct GatewayFleet {
    let backend: PostgresStoreUnderTest
    let folder: URL
    /// The rollout's devices.
    let devices: [String]
    /// Makes the roles of this test's gateways and operator its own.
    private let tag = UUID().uuidString.prefix(6).lowercased()

    /// `block`: the third octet of the devices' addresses, distinct per test, so that the
    /// gateways of one test never reach another test's rollouts.
    init(_ test: XCTestCase, backend: PostgresStoreUnderTest, devices count: Int, block: Int) throws {
        self.backend = backend
        folder = try RolloutCLI.temporaryFolder(test)
        devices = (0..<count).map { String(format: "C0:DE:%02X:04:00:%02X", block, $0 * 2) }
    }

    func url(as user: String) -> String {
        let location = backend.server.location
        return "postgres://\(user)@\(location.host):\(location.port)/\(location.database)?sslmode=disable"
    }

    func role(_ name: String) -> String { "\(name)_\(tag)" }

    /// This test's name for rollout `name`, so that the test runs again on the same server.
    func rollout(_ name: String) -> String { "\(name)-\(tag)" }

    /// Creates the rollout (an operator role, through the CLI): every device gets the fixture
    /// package (simulated faults are the gateways' business, in their files).
    func createRollout(_ name: String, package: String, canary: Int = 0, concurrency: Int = 2) async throws {
        try FileManager.default.copyItem(
            at: try Fixtures.url(package), to: folder.appendingPathComponent("app.zip"))
        let entries = devices.map { "{\"device\": \"\($0)\"}" }.joined(separator: ", ")
        let inventory = folder.appendingPathComponent("rollout.json")
        try Data("{\"defaults\": {\"package\": \"app.zip\"}, \"devices\": [\(entries)]}".utf8).write(
            to: inventory)
        let user = role("operator")
        try await backend.createLoginRole(user, in: "dfu_rollout_operator", password: "pw-\(user)")
        let output = try await CLIRunner.run(
            [
                "rollout", "create", rollout(name), inventory.path, "--store", url(as: user), "--canary",
                "\(canary)",
                "--concurrency", "\(concurrency)", "--json",
            ], environment: ["DFU_UPDATE_STORE_PASSWORD": "pw-\(user)"])
        XCTAssertEqual(output.status, 0, output.stderr)
    }

    /// Starts gateway `name`, which sees the devices at `indices`, simulated with
    /// `realTimeFactor` (and `faults` by index).
    func startGateway(
        _ name: String, sees indices: [Int], realTimeFactor: Double, faults: [Int: String] = [:],
        lease: Double, exitWhenIdle: Bool = true
    ) async throws -> BackgroundProcess {
        let entries = indices.map { index in
            let fault = faults[index].map { ", \"faults\": [\"\($0)\"]" } ?? ""
            return """
                {"device": "\(devices[index])", "simulate": {"kind": "secure-app", "firmware_version": "0.0.1", \
                "real_time_factor": \(realTimeFactor)\(fault)}}
                """
        }
        let file = folder.appendingPathComponent("\(name).json")
        try Data("{\"devices\": [\(entries.joined(separator: ", "))]}".utf8).write(to: file)
        let user = role(name)
        try await backend.createLoginRole(user, in: "dfu_rollout_gateway", password: "pw-\(user)")
        var arguments = [
            "gateway", "--store", url(as: user), "--name", user, "--simulated-devices", file.path, "--json",
            "--lease", "\(lease)", "--poll", "0.2", "--concurrency", "2",
        ]
        if exitWhenIdle { arguments.append("--exit-when-idle") }
        return try BackgroundProcess(
            CLIRunner.executableURL, arguments, environment: ["DFU_UPDATE_STORE_PASSWORD": "pw-\(user)"])
    }

    /// Cuts a gateway off from the database: its role may no longer log in, and its sessions
    /// are ended.
    func cutOff(_ name: String) async throws {
        let user = role(name)
        _ = try await backend.withClient { client in
            try await client.query(PostgresQuery(unsafeSQL: "ALTER ROLE \(user) NOLOGIN"))
            try await client.query(
                PostgresQuery(
                    unsafeSQL:
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(user)'"))
        }
    }
}

/// What the gateways printed, read back.
enum GatewayOutput {
    /// Activations of each device over the `simulator` events of every gateway.
    static func activations(_ gateways: [BackgroundProcess]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in gateways.flatMap(\.lines) {
            guard let object = json(line.text), object["event"] as? String == "simulator",
                let device = object["device"] as? String, let activations = object["activations"] as? Int
            else { continue }
            counts[device, default: 0] += activations
        }
        return counts
    }

    /// The lines of `event` (for `device`, if given).
    static func lines(_ gateway: BackgroundProcess, event: String, device: String? = nil)
        -> [BackgroundProcess.Line]
    {
        gateway.lines.filter { line in
            guard let object = json(line.text), object["event"] as? String == event else { return false }
            return device.map { object["device"] as? String == $0 } ?? true
        }
    }

    static func json(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }
}
