import DFUSupport
import Foundation
import GATT
import XCTest

/// A `dfu-sim` process serving a simulated device on a peripheral adapter, with its JSON Lines
/// read as they come.
final class SimulatedDeviceProcess: @unchecked Sendable {
    private let process = Process()
    private let output: JSONLinesReader

    /// Starts `dfu-sim --simulate KIND --adapter ADAPTER --json ARGUMENTS…` (hci1 by default).
    init(
        _ kind: String, _ arguments: [String] = [], adapter: String = SystemTestEnvironment.peripheralAdapter
    )
        throws
    {
        process.executableURL = SystemTestEnvironment.executable("dfu-sim")
        process.arguments = ["--simulate", kind, "--adapter", adapter, "--json"] + arguments
        output = try JSONLinesReader.launch(process)
    }

    /// Every JSON line so far.
    var events: [[String: Any]] { output.objects }

    /// The `advertising` events so far.
    var advertisements: [[String: Any]] { events.filter { $0["event"] as? String == "advertising" } }

    /// Waits (at most `timeout`) until `count` advertising events came; returns the last one.
    @discardableResult
    func waitForAdvertising(count: Int = 1, timeout: Duration = .seconds(20)) async throws -> [String: Any] {
        if let advertising = try await waitForEvent(
            count, timeout: timeout, matching: { $0["event"] as? String == "advertising" })
        {
            return advertising
        }
        let warnings = events.filter { $0["event"] as? String == "warning" }.compactMap { $0["message"] }
        throw SimulatorNotAdvertising(
            description:
                "dfu-sim advertised \(advertisements.count) of \(count) times within \(timeout); "
                + "its warnings: \(warnings); its standard error: \(stderr)")
    }

    /// Waits (at most `timeout`, and only while `stillExpected()` holds) for the `occurrence`-th
    /// event that `matches`, e.g. a `write` event of `--trace`; returns it, or nil when the wait
    /// ended without it.
    func waitForEvent(
        _ occurrence: Int = 1, timeout: Duration, while stillExpected: () -> Bool = { true },
        matching matches: ([String: Any]) -> Bool
    ) async throws -> [String: Any]? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, process.isRunning, stillExpected() {
            let found = events.filter(matches)
            if found.count >= occurrence { return found[occurrence - 1] }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Sends SIGINT, waits (at most 20 s) for the process to exit and returns its `simulator`
    /// event; fails the test unless it exited 0 with one.
    func stop(file: StaticString = #filePath, line: UInt = #line) async throws -> [String: Any] {
        if process.isRunning { process.interrupt() }
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            // dfu-sim handles SIGTERM as it handles SIGINT: only SIGKILL ends one that hangs
            kill(process.processIdentifier, SIGKILL)
            XCTFail("dfu-sim did not exit within 20 s of SIGINT: \(stderr)", file: file, line: line)
        }
        process.waitUntilExit()
        while !output.isFinished { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(process.terminationStatus, 0, "dfu-sim: \(stderr)", file: file, line: line)
        return try XCTUnwrap(
            events.last { $0["event"] as? String == "simulator" }, "no simulator event: \(events) \(stderr)",
            file: file, line: line)
    }

    var stderr: String { output.errorOutput }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// dfu-sim did not (re)start advertising in time, or ended.
struct SimulatorNotAdvertising: Error, CustomStringConvertible {
    var description: String
}
