import DFURollout
import Foundation
import RolloutStoreTesting
import TestSupport
import XCTest

/// The embedded store when its process is killed (`kill -9`) while writing: no reported
/// device is lost, and none whose report had not begun is marked done.
final class EmbeddedCrashTests: XCTestCase {
    func testKilledWriterLosesNothingAndInventsNothing() async throws {
        for killAfter in [1, 37, 150] {
            try await killWriter(afterResults: killAfter)
        }
    }

    private func killWriter(afterResults count: Int) async throws {
        let backend = try EmbeddedStoreUnderTest()
        defer { backend.remove() }
        let spec = RolloutFixtures.spec(devices: 300)
        let creator = try backend.open()
        try await creator.create(spec)
        try await creator.close()

        let writer = CLIRunner.executable(named: "rollout-store-writer")
        let trigger = "done \(spec.devices[count - 1].device)\n"
        let output = try await ProcessRunner.run(
            writer, [backend.path, spec.name], whenOutputContains: trigger
        ) {
            text in
            guard let line = text.split(separator: "\n").first, let pid = Int32(line.dropFirst("pid ".count))
            else {
                return
            }
            kill(pid, SIGKILL)
        }
        XCTAssertEqual(output.status, SIGKILL, "the writer was not killed: \(output.stderr)")
        let lines = output.stdoutText.split(separator: "\n")
        let started = Set(
            lines.filter { $0.hasPrefix("claimed ") }.map { String($0.dropFirst("claimed ".count)) })
        let done = Set(lines.filter { $0.hasPrefix("done ") }.map { String($0.dropFirst("done ".count)) })
        XCTAssertGreaterThanOrEqual(done.count, count)

        let reopened = try backend.open()
        let devices = try await reopened.status(of: spec.name).devices
        let recorded = Set(devices.filter { $0.result == .completed }.map(\.device))
        XCTAssertTrue(done.isSubset(of: recorded), "lost: \(done.subtracting(recorded).sorted())")
        XCTAssertTrue(
            recorded.isSubset(of: started),
            "marked done unreported: \(recorded.subtracting(started).sorted())")
        XCTAssertLessThan(recorded.count, spec.devices.count, "the writer finished before it was killed")

        // The device it held when killed goes to another gateway once its lease is over.
        backend.passTime(beyond: Date().addingTimeInterval(3600))
        let next = try await reopened.claim(
            spec.name, for: "other", among: nil, limit: 1, lease: .seconds(60))
        XCTAssertEqual(next.first?.device, devices.first { $0.result == nil }?.device)
        try await reopened.close()
    }
}
