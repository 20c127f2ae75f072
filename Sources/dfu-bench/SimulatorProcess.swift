import ArgumentParser
import DFUSupport
import Foundation

/// A `dfu-sim --json` process serving a simulated device on an adapter, started by the benchmark
/// and stopped by its pid (SIGINT), with its JSON Lines read as they come.
final class SimulatorProcess: @unchecked Sendable {
    private let process = Process()
    private let lines = Locked<[[String: Any]]>([])
    private let errorText = Locked("")
    private let reader: Thread

    /// Starts `EXECUTABLE --adapter ADAPTER --json ARGUMENTS…`.
    init(executable: URL, adapter: String, arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = ["--adapter", adapter, "--json"] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let lines = lines
        // Threads of their own: the benchmark's tasks must not wait behind a blocking read.
        reader = Thread {
            var buffer = Data()
            while case let chunk = out.fileHandleForReading.availableData, !chunk.isEmpty {
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = buffer[buffer.startIndex..<newline]
                    buffer = Data(buffer[(newline + 1)...])
                    if let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] {
                        lines.withLock { $0.append(object) }
                    }
                }
            }
        }
        reader.start()
        let errorText = errorText
        Thread {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errorText.withLock { $0 = String(decoding: data, as: UTF8.self) }
        }.start()
    }

    /// The address of the first `advertising` event, once it came (at most `timeout`).
    func advertisedAddress(timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let advertising = lines.withLock { $0.first { $0["event"] as? String == "advertising" } }
            if let address = advertising?["device"] as? String { return address }
            guard process.isRunning, ContinuousClock.now < deadline else {
                throw ValidationError(
                    "dfu-sim did not advertise within \(timeout): \(errorText.withLock { $0 })")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Sends SIGINT to the process, waits (at most 20 s, then SIGTERM) and returns its
    /// `simulator` event: what the device holds.
    func stop() async throws -> [String: Any] {
        if process.isRunning { process.interrupt() }
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            process.terminate()
            throw ValidationError(
                "dfu-sim (pid \(process.processIdentifier)) did not exit within 20 s of SIGINT")
        }
        while !reader.isFinished { try await Task.sleep(for: .milliseconds(10)) }
        guard let held = lines.withLock({ $0.last { $0["event"] as? String == "simulator" } }) else {
            throw ValidationError(
                "dfu-sim exited \(process.terminationStatus) without a simulator event: \(errorText.withLock { $0 })"
            )
        }
        return held
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
