import Foundation

/// What a child process writes: the JSON objects of its standard output (JSON Lines) as they come,
/// and its standard error once it ends. Each pipe is read on a thread of its own, so that no task
/// of the concurrency pool waits behind a blocking read. Lines are parsed when `objects` is read,
/// not as they come: a benchmark's `dfu-sim --trace` prints a line per write, and parsing them
/// during the upload would take CPU from the link being measured.
package final class JSONLinesReader: @unchecked Sendable {
    private struct Lines {
        var unparsed: [Data] = []
        var objects: [[String: Any]] = []
    }

    private let lines = Locked(Lines())
    private let errorText = Locked("")
    private let reader: Thread

    /// Starts reading `output` (JSON Lines; other lines are left out) and `error`.
    private init(output: Pipe, error: Pipe) {
        let lines = lines
        reader = Thread {
            var buffer = Data()
            let handle = output.fileHandleForReading
            while case let chunk = handle.availableData, !chunk.isEmpty {
                buffer.append(chunk)
                var complete: [Data] = []
                var start = buffer.startIndex
                while let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    complete.append(buffer[start..<newline])
                    start = newline + 1
                }
                buffer = Data(buffer[start...])
                lines.withLock { $0.unparsed += complete }
            }
            // the Process and this thread keep the pipe: its end goes now, not with them
            try? handle.close()
        }
        reader.start()
        let errorText = errorText
        Thread {
            let data = error.fileHandleForReading.readDataToEndOfFile()
            try? error.fileHandleForReading.close()
            errorText.withLock { $0 = String(decoding: data, as: UTF8.self) }
        }.start()
    }

    /// Runs `process` with its standard output and error piped to a new reader.
    package static func launch(_ process: Process) throws -> JSONLinesReader {
        let (output, error) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = error
        try process.run()
        return JSONLinesReader(output: output, error: error)
    }

    /// Every JSON object so far, in order (other lines are left out).
    package var objects: [[String: Any]] {
        lines.withLock { lines in
            for line in lines.unparsed {
                if let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] {
                    lines.objects.append(object)
                }
            }
            lines.unparsed = []
            return lines.objects
        }
    }

    /// The standard error, once the process closed it (empty until then).
    package var errorOutput: String { errorText.withLock { $0 } }

    /// Whether the standard output ended and every line of it was read.
    package var isFinished: Bool { reader.isFinished }
}
