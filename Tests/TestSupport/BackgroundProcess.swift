import DFUSupport
import Foundation

/// A program running beside a test: its standard output read line by line as it comes, each
/// line with the wall-clock time it arrived, and as text for what it prints without ending a line
/// (a prompt); its standard input, when asked for, written with `send`; signalled and waited for
/// by its pid. The test must `wait` for it (or `kill` it), so that nothing it started outlives it.
public final class BackgroundProcess: Sendable {
    public struct Line: Sendable {
        public var arrived: Date
        public var text: String
    }

    private let process: Process
    private let output = Locked<[Line]>([])
    /// Everything it printed, the unfinished last line too.
    private let printed = Locked(Data())
    private let input: Pipe?
    private let errors = Locked(Data())
    private let exit = Locked<Int32?>(nil)
    public let pid: Int32

    /// `environment` adds to (or replaces entries of) this process's environment. `takesInput`:
    /// its standard input is `send`'s (otherwise this process's); `errorsInOutput`: it prints its
    /// standard error into its standard output, as a terminal shows both.
    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        takesInput: Bool = false, errorsInOutput: Bool = false
    ) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        let input = takesInput ? Pipe() : nil
        if let input { process.standardInput = input }
        self.input = input
        process.standardOutput = out
        process.standardError = errorsInOutput ? out : err
        let exit = exit
        process.terminationHandler = { finished in exit.withLock { $0 = finished.terminationStatus } }
        try process.run()
        self.process = process
        pid = process.processIdentifier
        let output = output
        let printed = printed
        Thread {
            var pending = Data()
            while case let chunk = out.fileHandleForReading.availableData, !chunk.isEmpty {
                printed.withLock { $0.append(chunk) }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let text = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    output.withLock { $0.append(Line(arrived: Date(), text: text)) }
                }
            }
        }.start()
        guard !errorsInOutput else { return }
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

    /// Everything it printed so far, as text, the unfinished last line too.
    public var transcript: String { printed.withLock { String(decoding: $0, as: UTF8.self) } }

    /// How many bytes it has printed so far: where `text(_:after:)` starts looking.
    public var printedCount: Int { printed.withLock { $0.count } }

    /// Whether it has not exited yet.
    public var isRunning: Bool { exit.withLock { $0 } == nil }

    /// Writes `text` to its standard input (`takesInput`).
    public func send(_ text: String) throws {
        guard let input else { throw BackgroundProcessError(description: "pid \(pid) takes no input") }
        try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    /// Closes its standard input (`takesInput`): it reads the end of it.
    public func closeInput() { try? input?.fileHandleForWriting.close() }

    /// The first of `texts` in what it printed from byte `offset` on, whether or not a newline
    /// followed (a prompt waits for an answer on its own line), polling every 10 ms for at most
    /// `timeout` or until it exits; nil when none came.
    public func text(_ texts: [String], within timeout: Duration = .seconds(60), after offset: Int = 0)
        async throws -> String?
    {
        let deadline = ContinuousClock.now + timeout
        func found() -> String? {
            let since = printed.withLock { String(decoding: $0.dropFirst(offset), as: UTF8.self) }
            return texts.first(where: since.contains)
        }
        while ContinuousClock.now < deadline, isRunning {
            if let text = found() { return text }
            try await Task.sleep(for: .milliseconds(10))
        }
        return found()
    }

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
