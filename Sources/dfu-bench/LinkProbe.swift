import ArgumentParser
import BlueZ
import DFUSupport
import Foundation
import GATT
import NordicDFU

/// What one link to a Secure DFU bootloader costs, measured with the protocol's own messages on
/// a fresh bootloader (no object created, so every packet is refused at once and changes nothing).
struct LinkFigures {
    /// A control point request written and its response notified (Set PRN).
    var requestRoundTrip: Duration
    /// A control point request written until its write response (bluetoothd's `WriteValue`
    /// reply): from then on packets may follow it (docs/engine.md, "Streaming behind Create").
    var requestWriteResponse: Duration
    /// One packet written without response and its packet receipt notified (PRN 1).
    var receiptRoundTrip: Duration
    /// Write-without-response bytes per second that reach the device, from the time of a long
    /// run of packets ending in a receipt minus that of a short one (so the fixed latency
    /// cancels out).
    var rawBytesPerSecond: Double
    /// The packet size the engine uses on this link (its maximum write-without-response
    /// length, a multiple of 4).
    var packetBytes: Int
    /// The bootloader's data object size (Select data).
    var objectSize: Int
    /// This process's user + system CPU seconds per MB over the long raw runs: what the
    /// transport alone costs, to compare the updater's CPU with.
    var rawCPUSecondsPerMB: Double
    /// This process's CPU seconds per control point round trip (a WriteValue request and a
    /// notification through the acquired socket).
    var requestCPUSeconds: Double
}

extension LinkFigures {
    /// The link over a run, from its figures at the start and at the end: round trips and CPU
    /// averaged, the raw rate as the mean time per byte.
    static func mean(_ first: LinkFigures, _ second: LinkFigures) -> LinkFigures {
        LinkFigures(
            requestRoundTrip: (first.requestRoundTrip + second.requestRoundTrip) / 2,
            requestWriteResponse: (first.requestWriteResponse + second.requestWriteResponse) / 2,
            receiptRoundTrip: (first.receiptRoundTrip + second.receiptRoundTrip) / 2,
            rawBytesPerSecond: 2 / (1 / first.rawBytesPerSecond + 1 / second.rawBytesPerSecond),
            packetBytes: first.packetBytes, objectSize: first.objectSize,
            rawCPUSecondsPerMB: (first.rawCPUSecondsPerMB + second.rawCPUSecondsPerMB) / 2,
            requestCPUSeconds: (first.requestCPUSeconds + second.requestCPUSeconds) / 2)
    }
}

/// Measures `LinkFigures` on a connection to a Secure DFU bootloader.
struct LinkProbe {
    let link: SecureDFULink

    /// Connects through `central`, measures and disconnects. Round trips are the median of
    /// `roundTrips`; each streamed run is the best of `repeats`.
    static func measure(
        central: BlueZCentral, address: String, roundTrips: Int, longRun: Int, repeats: Int
    ) async throws -> LinkFigures {
        try await SecureDFULink.withLink(central: central, address: address) { link in
            try await LinkProbe(link: link).measure(
                roundTrips: roundTrips, longRun: longRun, repeats: repeats)
        }
    }

    private func measure(roundTrips: Int, longRun: Int, repeats: Int) async throws -> LinkFigures {
        let packetBytes = await link.packetBytes
        guard case .selected(let objectSize, _, _) = try await link.request(.select(.data)).outcome else {
            throw ValidationError("Select (data) returned no object size")
        }
        var requests: [Duration] = []
        var writeResponses: [Duration] = []
        let requestsCPUBefore = LinkBenchmark.processCPUSeconds()
        for _ in 0..<roundTrips {
            let start = ContinuousClock.now
            try await link.write(.setPacketReceiptNotification(0))
            writeResponses.append(ContinuousClock.now - start)
            _ = try await link.response(to: .setPacketReceiptNotification(0))
            requests.append(ContinuousClock.now - start)
        }
        let requestCPU = (LinkBenchmark.processCPUSeconds() - requestsCPUBefore) / Double(roundTrips)
        let shortRun = max(1, longRun / 10)
        let payload = [UInt8](repeating: 0xA5, count: packetBytes)
        var receipts: [Duration] = []
        for _ in 0..<roundTrips { receipts.append(try await timeToReceipt(packets: 1, payload)) }
        var short = Duration.seconds(3600)
        var long = Duration.seconds(3600)
        var longRunCPU = 0.0
        for _ in 0..<repeats {
            short = min(short, try await timeToReceipt(packets: shortRun, payload))
            let cpuBefore = LinkBenchmark.processCPUSeconds()
            long = min(long, try await timeToReceipt(packets: longRun, payload))
            longRunCPU += LinkBenchmark.processCPUSeconds() - cpuBefore
        }
        _ = try await link.request(.setPacketReceiptNotification(0))
        return LinkFigures(
            requestRoundTrip: requests.median!,
            requestWriteResponse: writeResponses.median!,
            receiptRoundTrip: receipts.median!,
            rawBytesPerSecond: Double((longRun - shortRun) * packetBytes) / (long - short).seconds,
            packetBytes: packetBytes, objectSize: Int(objectSize),
            rawCPUSecondsPerMB: longRunCPU / (Double(repeats * longRun * packetBytes) / 1_000_000),
            requestCPUSeconds: requestCPU)
    }

    /// Sets PRN to `packets`, then times `packets` writes until their receipt arrives.
    private func timeToReceipt(packets: Int, _ payload: [UInt8]) async throws -> Duration {
        _ = try await link.request(.setPacketReceiptNotification(UInt16(packets)))
        let start = ContinuousClock.now
        for _ in 0..<packets { try await link.packet.writeWithoutResponse(payload) }
        _ = try await link.receipt()
        return ContinuousClock.now - start
    }
}
