import DFUSupport
import Foundation
import XCTest

/// BlueZ's own `bluetoothctl` (of the BlueZ the VM runs) run interactively: commands go to its
/// standard input one at a time, and each is answered by waiting for a text in what it printed
/// since. A client this project did not write (docs/pairing.md, "`bluetoothctl` pairing with
/// `dfu-sim`").
final class BluetoothctlSession: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    /// Standard output and error together, as bluetoothctl prints them.
    private let output = Locked(Data())
    /// How many bytes it had printed when the last command was sent.
    private let mark = Locked(0)

    /// Starts `bluetoothctl ARGUMENTS…`; stopped by `quit()` (or its pid when the test ends).
    init(_ arguments: [String] = []) throws {
        process.executableURL = SystemTestEnvironment.bluetoothctl
        process.arguments = arguments
        let printed = Pipe()
        process.standardInput = input
        process.standardOutput = printed
        process.standardError = printed
        try process.run()
        let output = output
        Thread {
            let handle = printed.fileHandleForReading
            while case let chunk = handle.availableData, !chunk.isEmpty {
                output.withLock { $0.append(chunk) }
            }
            try? handle.close()
        }.start()
    }

    deinit { if process.isRunning { process.terminate() } }

    /// Everything it printed so far.
    var transcript: String { output.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Types `command` and a newline; `expect` then looks only at what comes after it. Throws
    /// when bluetoothctl has ended (a write to its closed input would end this process by SIGPIPE).
    func send(_ command: String) throws {
        guard process.isRunning else { throw BluetoothctlEnded(command: command, transcript: transcript) }
        let printed = output.withLock { $0.count }
        mark.withLock { $0 = printed }
        try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
    }

    /// Waits (at most `timeout`) until what it printed since the last command holds one of
    /// `texts`; returns that text, or nil (having failed the test) when none came.
    @discardableResult
    func expect(
        _ texts: [String], timeout: Duration = .seconds(30), file: StaticString = #filePath,
        line: UInt = #line
    ) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, process.isRunning {
            if let found = texts.first(where: sinceLastCommand.contains) { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
        if let found = texts.first(where: sinceLastCommand.contains) { return found }
        XCTFail(
            "bluetoothctl printed none of \(texts) within \(timeout):\n\(transcript)", file: file, line: line)
        return nil
    }

    /// `expect([text], …)`: whether it came.
    @discardableResult
    func expect(
        _ text: String, timeout: Duration = .seconds(30), file: StaticString = #filePath, line: UInt = #line
    ) async throws -> Bool {
        try await expect([text], timeout: timeout, file: file, line: line) != nil
    }

    /// Types `quit` and waits (at most 10 s) for it to end; ends it by its pid otherwise.
    func quit() async throws {
        if process.isRunning { try? send("quit") }
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning { process.terminate() }
        try? input.fileHandleForWriting.close()
    }

    private var sinceLastCommand: String {
        let start = mark.withLock { $0 }
        return output.withLock { String(decoding: $0.dropFirst(start), as: UTF8.self) }
    }
}

/// bluetoothctl ended before a command could be typed.
struct BluetoothctlEnded: Error, CustomStringConvertible {
    var command: String
    var transcript: String
    var description: String { "bluetoothctl ended before `\(command)`:\n\(transcript)" }
}
