import Foundation
import TestSupport
import XCTest

/// A reader that is gone (`dfu-update fleet … --json | head -1`): once a command serves metrics,
/// NIO ignores SIGPIPE, so its writes fail with EPIPE instead of ending it. It goes on without
/// the output, and exits with its own code, not with Foundation's crash and backtrace.
final class ClosedOutputCLITests: XCTestCase {
    func testAClosedStandardOutputIsNoCrash() async throws {
        let folder = try FleetFixtures.temporaryFolder(self)
        let inventory = try FleetFixtures.oneDeviceInventory(in: folder, size: 4096, seed: 3)
        let process = Process()
        process.executableURL = CLIRunner.executableURL
        process.arguments = ["fleet", inventory.path, "--plan", "--metrics", "127.0.0.1:0", "--json"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        // the reader is gone before the first line: every write to stdout fails
        try output.fileHandleForReading.close()
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, errorText)
        XCTAssertEqual(process.terminationStatus, 0, errorText)
        XCTAssertFalse(errorText.contains("Fatal error"), errorText)
    }
}
