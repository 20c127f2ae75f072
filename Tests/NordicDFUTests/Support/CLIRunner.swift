import Foundation
import XCTest

/// Runs the `dfu-update` executable built next to this test bundle, as users run it.
enum CLIRunner {
    /// What a run printed, and how it ended.
    struct Run {
        var status: Int32
        var stdout: Data
        var stderr: String

        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

        /// stdout's non-empty lines, each parsed as a JSON object.
        func jsonLines() throws -> [JSONObject] {
            try stdoutText.split(separator: "\n").map {
                try JSONObject(try JSONSerialization.jsonObject(with: Data($0.utf8)))
            }
        }

        /// The contract's error object, `{"error": {...}}`, as the only output on stdout.
        func errorObject() throws -> JSONObject {
            let lines = try jsonLines()
            XCTAssertEqual(lines.count, 1, stdoutText)
            return try XCTUnwrap(lines.first, "no error object on stdout; stderr: \(stderr)").object("error")
        }
    }

    /// The executable; its absence fails the test (`swift build --build-tests` builds it).
    static func executable() throws -> URL {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let url = products.appendingPathComponent("dfu-update")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw ExecutableMissing(path: url.path)
        }
        return url
    }

    /// Runs `dfu-update arguments`, reading both pipes while it runs; a run longer than
    /// `timeout` is terminated and fails the test.
    static func run(_ arguments: [String], timeout: TimeInterval = 60) throws -> Run {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = PipeReader(out.fileHandleForReading)
        let stderr = PipeReader(err.fileHandleForReading)
        if !stdout.wait(timeout: timeout) || !stderr.wait(timeout: 5) {
            process.terminate()
            XCTFail("dfu-update \(arguments) did not end within \(timeout) s")
        }
        process.waitUntilExit()
        _ = stdout.wait(timeout: 5)
        _ = stderr.wait(timeout: 5)
        return Run(
            status: process.terminationStatus, stdout: stdout.data,
            stderr: String(decoding: stderr.data, as: UTF8.self))
    }

    struct ExecutableMissing: Error, CustomStringConvertible {
        let path: String
        var description: String { "dfu-update is not built at \(path); run swift build --build-tests" }
    }
}

/// Reads a pipe to its end on a thread of its own, so that neither pipe can fill and block the
/// program while the other is read.
private final class PipeReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var collected = Data()
    private var finished = false

    init(_ handle: FileHandle) {
        Thread { [self] in
            collected = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    /// Whether the pipe reached its end within `timeout` seconds.
    func wait(timeout: TimeInterval) -> Bool {
        if finished { return true }
        finished = done.wait(timeout: .now() + timeout) == .success
        return finished
    }

    /// The bytes read; only after ``wait(timeout:)`` returned true.
    var data: Data { finished ? collected : Data() }
}
