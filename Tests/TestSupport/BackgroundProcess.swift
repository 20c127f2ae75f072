import DFUSupport
import Foundation

/// A program running beside a test: its standard output read line by line as it comes, each
/// line with the wall-clock time it arrived; signalled and waited for by its pid. The test must
/// `wait` for it (or `kill` it), so that nothing it started outlives it.
public final class BackgroundProcess: Sendable {
    public struct Line: Sendable {
        public var arrived: Date
        public var text: String
    }

    private let process: Process
    private let output = Locked<[Line]>([])
    private let errors = Locked(Data())
    private let exit = Locked<Int32?>(nil)
    public let pid: Int32

    /// `environment` adds to (or replaces entries of) this process's environment.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let exit = exit
        process.terminationHandler = { finished in exit.withLock { $0 = finished.terminationStatus } }
        try process.run()
        self.process = process
        pid = process.processIdentifier
        let output = output
        Thread {
            var pending = Data()
            while case let chunk = out.fileHandleForReading.availableData, !chunk.isEmpty {
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let text = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    output.withLock { $0.append(Line(arrived: Date(), text: text)) }
                }
            }
        }.start()
        let errors = errors
        Thread {
            while case let chunk = err.fileHandleForReading.availableData, !chunk.isEmpty {
                errors.withLock { $0.append(chunk) }
            }
        }.start()
    }

    /// The lines of standard output so far.
    public var lines: [Line] { output.withLock { $0 } }

    public var standardError: String { String(decoding: errors.withLock { $0 }, as: UTF8.self) }

    /// The first line (from `after` on) for which `matches` holds, polling every 10 ms for at
    /// most `timeout`.
    public func line(
        within timeout: Duration = .seconds(60), after index: Int = 0, where matches: (String) -> Bool
    ) async throws -> Line {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = lines.dropFirst(index).first(where: { matches($0.text) }) { return found }
            if exit.withLock({ $0 }) != nil,
                let found = lines.dropFirst(index).first(where: { matches($0.text) })
            {
                return found
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BackgroundProcessError(description: "pid \(pid) printed no such line within \(timeout)")
    }

    public func signal(_ number: Int32) { _ = Foundation.kill(pid, number) }

    /// Waits for it to exit, for at most `timeout`; then kills it and throws.
    @discardableResult
    public func wait(within timeout: Duration = .seconds(120)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = exit.withLock({ $0 }) { return status }
            try await Task.sleep(for: .milliseconds(20))
        }
        signal(SIGKILL)
        process.waitUntilExit()
        throw BackgroundProcessError(
            description: "pid \(pid) did not exit within \(timeout); killed. Its last lines:\n"
                + lines.suffix(30).map(\.text).joined(separator: "\n") + "\nstandard error:\n"
                + String(standardError.suffix(3000)))
    }
}

public struct BackgroundProcessError: Error, CustomStringConvertible {
    public var description: String
}
