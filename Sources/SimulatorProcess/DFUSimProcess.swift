import DFUSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `dfu-sim --json` process serving a simulated device (on an adapter, or behind its
/// bluetoothd stand-in), with its JSON Lines read as they come: what the benchmarks and the
/// system tests start, wait on and stop by its pid, never by name.
public final class DFUSimProcess: @unchecked Sendable {
    private let process = Process()
    private let output: JSONLinesReader

    /// Starts `executable --json arguments…`; `environment` adds to (or replaces entries of) this
    /// process's environment.
    public init(executable: URL, arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = ["--json"] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        output = try JSONLinesReader.launch(process)
    }

    /// The `dfu-sim` beside this program's executable.
    public static var besideThisProgram: URL {
        let own = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return own.deletingLastPathComponent().appendingPathComponent("dfu-sim")
    }

    /// Every JSON line so far.
    public var events: [[String: Any]] { output.objects }

    /// The `advertising` events so far.
    public var advertisements: [[String: Any]] { events.filter { $0["event"] as? String == "advertising" } }

    /// What it wrote to its standard error so far.
    public var errorOutput: String { output.errorOutput }

    /// Waits (at most `timeout`) until `count` advertising events came; returns the last one.
    @discardableResult
    public func waitForAdvertising(count: Int = 1, timeout: Duration = .seconds(20)) async throws -> [String:
        Any]
    {
        if let advertising = try await waitForEvent(
            count, timeout: timeout, matching: { $0["event"] as? String == "advertising" })
        {
            return advertising
        }
        let warnings = events.filter { $0["event"] as? String == "warning" }.compactMap { $0["message"] }
        throw DFUSimProcessError(
            "dfu-sim advertised \(advertisements.count) of \(count) times within \(timeout); "
                + "its warnings: \(warnings); its standard error: \(errorOutput)")
    }

    /// The address of the first `advertising` event, once it came (at most `timeout`).
    public func advertisedAddress(timeout: Duration = .seconds(30)) async throws -> String {
        let advertising = try await waitForAdvertising(timeout: timeout)
        guard let address = advertising["device"] as? String else {
            throw DFUSimProcessError("dfu-sim's advertising event names no device: \(advertising)")
        }
        return address
    }

    /// Waits (at most `timeout`, and only while `stillExpected()` holds) for the `occurrence`-th
    /// event that `matches`, e.g. a `write` event of `--trace`; returns it, or nil when the wait
    /// ended without it.
    public func waitForEvent(
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
    /// event: what the device holds. Throws unless it exited 0 with one; one that did not exit
    /// gets SIGKILL (dfu-sim handles SIGTERM as it handles SIGINT).
    public func stop() async throws -> [String: Any] {
        if process.isRunning { process.interrupt() }
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            throw DFUSimProcessError(
                "dfu-sim (pid \(process.processIdentifier)) did not exit within 20 s of SIGINT: \(errorOutput)"
            )
        }
        process.waitUntilExit()
        while !output.isFinished { try await Task.sleep(for: .milliseconds(10)) }
        guard process.terminationStatus == 0 else {
            throw DFUSimProcessError("dfu-sim exited \(process.terminationStatus): \(errorOutput)")
        }
        guard let held = events.last(where: { $0["event"] as? String == "simulator" }) else {
            throw DFUSimProcessError("dfu-sim exited without a simulator event: \(events) \(errorOutput)")
        }
        return held
    }

    /// Runs `body` with the address this simulator advertises, then stops it and runs
    /// `afterStop` with that address (when it advertised one). Returns `body`'s value and the
    /// `simulator` event; `body`'s own failure comes first, since a failed stop after it would
    /// hide it.
    public func serving<T>(
        _ body: (String) async throws -> T, afterStop: (String) async -> Void = { _ in }
    ) async throws -> (value: T, held: [String: Any]) {
        let outcome: Result<T, any Error>
        var address = ""
        do {
            address = try await advertisedAddress()
            outcome = .success(try await body(address))
        } catch {
            outcome = .failure(error)
        }
        let held: Result<[String: Any], any Error>
        do {
            held = .success(try await stop())
        } catch {
            held = .failure(error)
        }
        if !address.isEmpty { await afterStop(address) }
        return (try outcome.get(), try held.get())
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// A `dfu-sim` process that did not do what was waited for: advertise, exit, report.
public struct DFUSimProcessError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
