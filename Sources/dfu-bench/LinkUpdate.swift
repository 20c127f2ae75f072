import ArgumentParser
import BlueZ
import Crypto
import DFUSupport
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU

/// One Secure DFU through bluetoothd, as `dfu-bench link` measured it.
struct LinkUpdateRun {
    var acquireWrite: Bool
    /// From the first control point request to the final Execute answer (`transferDurations`).
    var transfer: Duration
    var imageBytes: Int
    /// Firmware bytes the updater wrote, resends included (`DFUResult.bytesSent`).
    var bytesSent: Int
    /// This process's user + system CPU time over the whole update.
    var cpuSeconds: Double
    var retries: Int

    var bytesPerSecond: Double { Double(imageBytes) / transfer.seconds }
    var cpuSecondsPerMB: Double { cpuSeconds / (Double(bytesSent) / 1_000_000) }
}

extension LinkBenchmark {
    /// A signed Secure DFU application of `size` pseudo-random bytes.
    static func package(size: Int, key: P256.Signing.PrivateKey) throws -> DFUPackage {
        var generator = SplitMix64(seed: UInt64(size))
        let firmware = generator.bytes(size)
        return try DFUPackage.secureApplication(
            firmware: firmware, version: 1, signedBy: key, name: "bench-\(size).bin")
    }

    /// Updates the device at `address` from `adapter` with default options, through AcquireWrite
    /// or through pipelined WriteValue (`BlueZCentral.Options.writeValueWindow`).
    static func update(_ package: DFUPackage, address: String, adapter: String, acquireWrite: Bool)
        async throws -> LinkUpdateRun
    {
        var options = BlueZCentral.Options()
        options.acquireWrite = acquireWrite
        let central = try await BlueZCentral(adapter: adapter, options: options)
        let updater = DFUUpdater(package: package, central: central, device: DeviceIdentifier(address))
        let cpuBefore = Self.processCPUSeconds()
        let result = await updater.run()
        let cpu = Self.processCPUSeconds() - cpuBefore
        guard result.outcome == .completed, let transfer = result.transferDurations.first else {
            throw ValidationError(
                "the update did not complete: \(result.failure?.message ?? result.identifier)")
        }
        return LinkUpdateRun(
            acquireWrite: acquireWrite, transfer: transfer, imageBytes: package.images[0].firmware.count,
            bytesSent: result.bytesSent, cpuSeconds: cpu, retries: result.retries)
    }

    /// Fails unless dfu-sim's `simulator` event shows the package's application, byte for byte.
    static func check(_ held: [String: Any], holds package: DFUPackage) throws {
        let image = (held["images"] as? [String: Any])?["application"] as? [String: Any]
        let expected = SHA256.hash(data: package.images[0].firmware).hexString()
        guard image?["sha256"] as? String == expected else {
            throw ValidationError("dfu-sim does not hold the image sent (sha256 \(expected)): \(held)")
        }
    }

    /// User + system CPU seconds of this process so far (getrusage).
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
