import ArgumentParser
import DFUSupport
import Foundation

/// A `dfu-sim --json` process serving a simulated device (on an adapter, or behind its
/// bluetoothd stand-in), started by the benchmark
/// and stopped by its pid (SIGINT), with its JSON Lines read as they come.
final class SimulatorProcess: @unchecked Sendable {
    private let process = Process()
    private let output: JSONLinesReader

    /// Starts `EXECUTABLE --json ARGUMENTS…`.
    init(executable: URL, arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = ["--json"] + arguments
        output = try JSONLinesReader.launch(process)
    }

    /// `given`, or the dfu-sim next to this executable.
    static func executable(_ given: String?) -> URL {
        if let given { return URL(fileURLWithPath: given) }
        let own = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return own.deletingLastPathComponent().appendingPathComponent("dfu-sim")
    }

    /// Runs `body` with the address this simulator advertises, then stops it and runs
    /// `afterStop` with that address (when it advertised one). Returns `body`'s value and the
    /// `simulator` event; `body`'s own failure comes first, since a failed stop after it would
    /// hide it.
    func serving<T>(
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

    /// The address of the first `advertising` event, once it came (at most `timeout`).
    func advertisedAddress(timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let advertising = output.objects.first { $0["event"] as? String == "advertising" }
            if let address = advertising?["device"] as? String { return address }
            guard process.isRunning, ContinuousClock.now < deadline else {
                throw ValidationError(
                    "dfu-sim did not advertise within \(timeout): \(output.errorOutput)")
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
        while !output.isFinished { try await Task.sleep(for: .milliseconds(10)) }
        guard let held = output.objects.last(where: { $0["event"] as? String == "simulator" }) else {
            throw ValidationError(
                "dfu-sim exited \(process.terminationStatus) without a simulator event: \(output.errorOutput)"
            )
        }
        return held
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
