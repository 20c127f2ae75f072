import DFUSupport
import Foundation
import TestSupport
import XCTest

/// BlueZ's own `bluetoothctl` (of the BlueZ the VM runs) run interactively: commands go to its
/// standard input one at a time, and each is answered by waiting for a text in what it printed
/// since. A client this project did not write (docs/pairing.md, "`bluetoothctl` pairing with
/// `dfu-sim`").
final class BluetoothctlSession: Sendable {
    /// bluetoothctl, its standard output and error read together as a terminal shows them.
    private let process: BackgroundProcess
    /// How many bytes it had printed when the last command was sent.
    private let mark = Locked(0)

    /// Starts `bluetoothctl ARGUMENTS…`; stopped by `quit()` (or its pid when the test ends).
    init(_ arguments: [String] = []) throws {
        process = try BackgroundProcess(
            SystemTestEnvironment.bluetoothctl, arguments, takesInput: true, errorsInOutput: true)
    }

    deinit { if process.isRunning { process.signal(SIGTERM) } }

    /// Everything it printed so far.
    var transcript: String { process.transcript }

    /// Types `command` and a newline; `expect` then looks only at what comes after it. Throws
    /// when bluetoothctl has ended (a write to its closed input would end this process by SIGPIPE).
    func send(_ command: String) throws {
        guard process.isRunning else { throw BluetoothctlEnded(command: command, transcript: transcript) }
        mark.withLock { $0 = process.printedCount }
        try process.send(command + "\n")
    }

    /// Waits (at most `timeout`) until what it printed since the last command holds one of
    /// `texts`, a prompt without its newline too; returns that text, or nil (having failed the
    /// test) when none came.
    @discardableResult
    func expect(
        _ texts: [String], timeout: Duration = .seconds(30), file: StaticString = #filePath,
        line: UInt = #line
    ) async throws -> String? {
        if let found = try await process.text(texts, within: timeout, after: mark.withLock { $0 }) {
            return found
        }
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
        _ = try? await process.wait(within: .seconds(10))
        process.closeInput()
    }
}

/// bluetoothctl ended before a command could be typed.
struct BluetoothctlEnded: Error, CustomStringConvertible {
    var command: String
    var transcript: String
    var description: String { "bluetoothctl ended before `\(command)`:\n\(transcript)" }
}
