import Foundation
import RolloutStoreTesting
import TestSupport
import XCTest

/// `dfu-update rollout …` run as users run it, for the CLI tests.
enum RolloutCLI {
    /// An inventory of `devices` devices in `folder` whose default package is a fixture, named
    /// relative to the inventory.
    static func inventory(devices: Int, in folder: URL) throws -> URL {
        let package = try Fixtures.url("secure/secure_app_20_hex_signed.zip")
        try FileManager.default.copyItem(at: package, to: folder.appendingPathComponent("app.zip"))
        let entries = (0..<devices).map { "{\"device\": \"\(RolloutFixtures.deviceName($0))\"}" }
        let json =
            "{\"defaults\": {\"package\": \"app.zip\"}, \"devices\": [\(entries.joined(separator: ", "))]}"
        let url = folder.appendingPathComponent("rollout.json")
        try Data(json.utf8).write(to: url)
        return url
    }

    /// Runs `dfu-update rollout ARGUMENTS --json`; its exit status and its one JSON object.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws
        -> (status: Int32, object: JSONObject)
    {
        let output = try await CLIRunner.run(["rollout"] + arguments + ["--json"], environment: environment)
        let lines = try output.jsonLines()
        XCTAssertEqual(lines.count, 1, "\(arguments): \(output.stdoutText) \(output.stderr)")
        return (output.status, try XCTUnwrap(lines.first, output.stderr))
    }

    /// What most CLI tests start from: a fresh folder (`temporaryFolder`), an inventory of
    /// `devices` devices in it (`inventory(devices:in:)`) and the path of an embedded store beside it.
    static func workspace(_ test: XCTestCase, devices: Int) throws -> (
        folder: URL, inventory: String, store: String
    ) {
        let folder = try temporaryFolder(test)
        return (
            folder, try inventory(devices: devices, in: folder).path,
            folder.appendingPathComponent("rollouts.sqlite").path
        )
    }

    /// A fresh folder under the temporary directory, removed when `test` ends.
    static func temporaryFolder(_ test: XCTestCase) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rollout-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }
}
