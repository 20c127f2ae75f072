import Foundation
import XCTest

/// What a program printed, and how it ended.
public struct ProcessOutput: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: String

    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

    /// stdout's non-empty lines, each parsed as a JSON object (JSON Lines).
    public func jsonLines() throws -> [JSONObject] {
        try stdoutText.split(separator: "\n").map {
            try JSONObject(try JSONSerialization.jsonObject(with: Data($0.utf8)))
        }
    }

    /// The contract's error object (`{"error": {...}}`), which must be all that is on stdout.
    public func errorObject() throws -> JSONObject {
        let lines = try jsonLines()
        XCTAssertEqual(lines.count, 1, stdoutText)
        return try XCTUnwrap(lines.first, "no error object on stdout; stderr: \(stderr)").object("error")
    }
}

/// Runs a program to its end, reading its pipes on threads of their own while it runs (so that
/// it never blocks on a full pipe, and no thread of the concurrency pool blocks); a program
/// that outlives `timeout` is terminated and fails the test. With `interruptingWhen`, the
/// program gets SIGINT (Ctrl-C) as soon as its standard output contains that text.
public enum ProcessRunner {
    /// `environment` adds to (or replaces entries of) this process's environment.
    public static func run(
        _ executable: URL, _ arguments: [String], timeout: Duration = .seconds(60),
        interruptingWhen trigger: String? = nil, environment: [String: String] = [:]
    ) async throws -> ProcessOutput {
        try await run(
            executable, arguments, timeout: timeout, whenOutputContains: trigger, environment: environment
        ) { process, _ in
            process.interrupt()
        }
    }

    /// `run`, calling `reached` (once, on a reader thread) with the standard output so far as
    /// soon as it contains `trigger`, e.g. to inject a fault at a known point of its work.
    public static func run(
        _ executable: URL, _ arguments: [String], timeout: Duration = .seconds(60),
        whenOutputContains trigger: String?, _ reached: @escaping @Sendable (String) -> Void
    ) async throws -> ProcessOutput {
        try await run(executable, arguments, timeout: timeout, whenOutputContains: trigger, environment: [:])
        {
            _, output in
            reached(output)
        }
    }

    private static func run(
        _ executable: URL, _ arguments: [String], timeout: Duration, whenOutputContains trigger: String?,
        environment: [String: String], reached: @escaping @Sendable (RunningProcess, String) -> Void
    ) async throws -> ProcessOutput {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let (exits, exited) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = {
            exited.yield($0.terminationStatus)
            exited.finish()
        }
        try process.run()
        let running = RunningProcess(process)
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            running.terminate()
        }
        async let stdout = readToEnd(out.fileHandleForReading) { soFar in
            guard let trigger else { return }
            let text = String(decoding: soFar, as: UTF8.self)
            if text.contains(trigger), running.reachTrigger() { reached(running, text) }
        }
        async let stderr = readToEnd(err.fileHandleForReading) { _ in }
        var status: Int32 = -1
        for await code in exits { status = code }
        watchdog.cancel()
        if running.wasTerminated {
            XCTFail("\(executable.lastPathComponent) \(arguments) did not end within \(timeout)")
        }
        return ProcessOutput(
            status: status, stdout: await stdout, stderr: String(decoding: await stderr, as: UTF8.self))
    }

    /// Reads `handle` to its end, showing `onData` everything read so far after each chunk.
    private static func readToEnd(_ handle: FileHandle, onData: @escaping @Sendable (Data) -> Void) async
        -> Data
    {
        await withCheckedContinuation { continuation in
            Thread {
                var data = Data()
                while case let chunk = handle.availableData, !chunk.isEmpty {
                    data.append(chunk)
                    onData(data)
                }
                continuation.resume(returning: data)
            }.start()
        }
    }

    /// The process, for the watchdog task.
    private final class RunningProcess: @unchecked Sendable {
        private let process: Process
        private let lock = NSLock()
        private var terminated = false
        private var triggered = false

        init(_ process: Process) { self.process = process }

        /// True the first time only: the output reached the trigger.
        func reachTrigger() -> Bool {
            lock.withLock {
                defer { triggered = true }
                return !triggered
            }
        }

        /// Sends SIGINT.
        func interrupt() {
            lock.withLock {
                guard process.isRunning else { return }
                process.interrupt()
            }
        }

        /// Whether the watchdog had to end it.
        var wasTerminated: Bool { lock.withLock { terminated } }

        func terminate() {
            lock.withLock {
                guard process.isRunning else { return }
                terminated = true
                process.terminate()
            }
        }
    }
}

/// The `dfu-update` executable built next to the test bundle, run as users run it.
public enum CLIRunner {
    /// Where `swift build --build-tests` puts it: beside the test bundle.
    public static var executableURL: URL { executable(named: "dfu-update") }

    /// An executable of this package (`dfu-update`, `dfu-sim`, …) built beside the test bundle.
    public static func executable(named name: String) -> URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // the bundle may be a directory (…/dfu-updatePackageTests.xctest) or a file
        while directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent(name)
    }

    /// Runs `dfu-update arguments`; a missing executable fails the test (it is never a skip).
    /// `environment` adds to this process's environment.
    public static func run(
        _ arguments: [String], timeout: Duration = .seconds(60), environment: [String: String] = [:]
    ) async throws -> ProcessOutput {
        let url = executableURL
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw ExecutableMissing(path: url.path)
        }
        return try await ProcessRunner.run(url, arguments, timeout: timeout, environment: environment)
    }

    public struct ExecutableMissing: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "dfu-update is not built at \(path); run swift build --build-tests" }
    }
}
