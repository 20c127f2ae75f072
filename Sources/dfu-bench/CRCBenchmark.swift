import ArgumentParser
import CZlib
import DFUSupport
import Foundation
import GATT
import NordicDFU

/// `dfu-bench crc`: our CRC-32 (and CRC-16) against zlib's `crc32` on the same buffer, in one run.
struct CRCBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crc", abstract: "CRC-32 throughput, ours against zlib's.")

    @Option(help: "Buffer size in bytes.")
    var bytes = 1 << 20

    @Option(help: "Passes over the buffer per round.")
    var passes = 200

    @Option(help: "Rounds; the best round of each implementation counts.")
    var rounds = 7

    func run() async throws {
        var generator = SystemRandomNumberGenerator()
        let buffer = (0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let ours = buffer.withUnsafeBytes { raw in CRC32.checksum(raw) }
        let zlibs = buffer.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        guard ours == zlibs else {
            throw ValidationError(
                "CRC-32 differs from zlib's: 0x\(String(ours, radix: 16)) vs 0x\(String(zlibs, radix: 16))")
        }

        // Interleave the rounds so that both see the same machine state.
        var best = (ours: Double.infinity, zlib: Double.infinity, crc16: Double.infinity)
        for _ in 0..<rounds {
            best.ours = min(best.ours, time { buffer.withUnsafeBytes { raw in UInt64(CRC32.checksum(raw)) } })
            best.zlib = min(
                best.zlib,
                time { buffer.withUnsafeBufferPointer { UInt64(crc32(0, $0.baseAddress, uInt($0.count))) } })
            best.crc16 = min(
                best.crc16, time { buffer.withUnsafeBytes { raw in UInt64(CRC16.checksum(raw)) } })
        }
        let total = Double(bytes * passes)
        report("crc32_ours", total / best.ours)
        report("crc32_zlib", total / best.zlib)
        report("crc16_ours", total / best.crc16)
        print(#"{"ratio":"crc32_ours/crc32_zlib","value":\#(figure(best.zlib / best.ours))}"#)
    }

    /// Seconds for `passes` runs of `body`; its results are folded so none is optimized away.
    private func time(_ body: () -> UInt64) -> Double {
        var sink: UInt64 = 0
        let start = ContinuousClock.now
        for _ in 0..<passes { sink &+= body() }
        let elapsed = ContinuousClock.now - start
        if sink == 1 { print("") }  // Never true in practice; keeps `sink` alive.
        return elapsed.seconds
    }

    private func report(_ name: String, _ bytesPerSecond: Double) {
        print(
            #"{"benchmark":"\#(name)","buffer_bytes":\#(bytes),"bytes_per_second":\#(figure(bytesPerSecond))}"#
        )
    }
}
