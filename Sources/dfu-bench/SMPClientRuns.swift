import ArgumentParser
import BlueZ
import Crypto
import DFUSimulator
import DFUSupport
import FirmwareUpdate
import Foundation
import GATT
import MCUmgr
import NordicDFU
import SimulatorProcess

/// One update of the SMP device by our engine, as `dfu-bench smp` measured it.
struct SMPEngineRun {
    /// From the first upload chunk to the device's last answer (`DFUResult.transferDurations`).
    var transfer: Duration
    var bytesSent: Int
    var bytesResent: Int
    var retries: Int
    /// This process's user + system CPU time over the whole update.
    var cpuSeconds: Double
}

extension SMPBenchmark {
    /// An MCUboot image file of `size` bytes and `version` (header, body, SHA-256 TLV).
    static func image(size: Int, version: String) throws -> MCUbootImage {
        let tail = 4 + 4 + SHA256.byteCount  // TLV area: its header, the SHA-256 TLV's header, the hash
        let bytes = SimulatedMCUbootImage.make(
            version: MCUbootVersion(version)!, bodySize: size - MCUbootHeader.size - tail)
        return try MCUbootImage(bytes: bytes, name: "bench-\(version)-\(size).bin")
    }

    /// Updates the device at `address` from `adapter` with `SMPUpdater` and default options.
    static func update(_ image: MCUbootImage, address: String, adapter: String) async throws -> SMPEngineRun {
        let central = try await BlueZCentral(adapter: adapter)
        let updater = SMPUpdater(
            package: MCUbootPackage(image: image), central: central, device: DeviceIdentifier(address))
        let cpuBefore = LinkBenchmark.processCPUSeconds()
        let result = await updater.run()
        let cpu = LinkBenchmark.processCPUSeconds() - cpuBefore
        guard result.outcome == .completed, let transfer = result.transferDurations.last else {
            throw ValidationError(
                "the SMP update did not complete: \(result.failure?.message ?? result.identifier)")
        }
        return SMPEngineRun(
            transfer: transfer, bytesSent: result.bytesSent, bytesResent: result.bytesResent,
            retries: result.retries, cpuSeconds: cpu)
    }

    /// Runs `smpmgr --ble ADDRESS --timeout 10 upgrade --confirm FILE` through the `smpmgr`
    /// launcher (scripts/vm/smpmgr-client.sh); returns its whole run's wall time.
    static func smpmgrUpgrade(_ image: MCUbootImage, address: String, launcher: String) async throws
        -> Duration
    {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-bench-smp-\(getpid())-\(image.name)")
        try Data(image.bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher)
        process.arguments = ["--ble", address, "--timeout", "10", "upgrade", "--confirm", file.path]
        process.standardOutput = FileHandle.nullDevice
        let started = ContinuousClock.now
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        guard status == 0 else { throw ValidationError("smpmgr exited \(status) (\(image.name))") }
        return ContinuousClock.now - started
    }

    /// Fails unless dfu-sim's `simulator` event shows `image` running: its file's SHA-256 as the
    /// application, swapped into slot 0 for good.
    static func check(_ held: [String: Any], runs image: MCUbootImage) throws {
        let application = (held["images"] as? [String: Any])?["application"] as? [String: Any]
        let slot0 = (held["slots"] as? [[String: Any]])?.first
        let expected = SHA256.hash(data: image.bytes).hexString()
        guard application?["sha256"] as? String == expected, slot0?["confirmed"] as? Bool == true else {
            throw ValidationError("dfu-sim does not run \(image.name) (sha256 \(expected)) for good: \(held)")
        }
    }
}
