import DFUSimulator
import DFUSupport

/// The shortest Secure DFU of one image a client could make on a measured link
/// (docs/benchmarks.md, "DFU through bluetoothd"): one Set PRN, then for every object, the init packet's
/// included, Create written, the object's bytes streamed from Create's write response at the raw
/// rate (the SDK takes packets behind a Create it has not answered yet: docs/engine.md
/// "Streaming behind Create") with the checksum in the receipt for the last packet, and Execute
/// written once both Create's answer and that receipt are in, then answered. Create and Execute
/// are each answered before the next request, as the bound asks. Nothing else: no
/// Select, no Calculate Checksum, no wait. The span is the engine's `transferDurations` span,
/// from the first control point request to the final Execute answer.
///
/// With `flash`, the device's flash model too (what `dfu-sim` runs, docs/simulator.md): a
/// request reaches the device half a round trip after it is written; Execute is answered only
/// once the settings write behind the init packet, the object's page erases and its word writes
/// are done (the last one also after hashing the image). Without it, the link alone: the issue's
/// "protocol bound".
struct ProtocolBound {
    let link: LinkFigures
    let flash: SimulationTiming?

    func duration(imageBytes: Int, initPacketBytes: Int) -> Duration {
        let roundTrip = link.requestRoundTrip.seconds
        let oneWay = roundTrip / 2
        var now = roundTrip  // Set PRN, once
        var flashFreeAt = 0.0
        // the init packet's object; its Execute queues the settings write
        now = streamed(createdAt: now, bytes: initPacketBytes).executeWritten
        if let flash { flashFreeAt = now + oneWay + flash.settingsWriteOperations.reduce(.zero, +).seconds }
        now += roundTrip
        var offset = 0
        while offset < imageBytes {
            let size = min(link.objectSize, imageBytes - offset)
            offset += size
            if let flash {
                flashFreeAt = max(flashFreeAt, now + oneWay) + flash.eraseTime(bytes: size).seconds
            }
            let created = now
            let (lastReceipt, executeWritten) = streamed(createdAt: created, bytes: size)
            now = executeWritten
            var validation = 0.0
            if let flash {
                // every word is written after the erase and after its packet arrived: from the
                // first packet's arrival on, and the last packet's words after it
                let oneWayPacket = link.receiptRoundTrip.seconds / 2
                let firstArrival = created + link.requestWriteResponse.seconds + oneWayPacket
                let lastPacket = (size - 1) % link.packetBytes + 1
                flashFreeAt = max(
                    max(flashFreeAt, firstArrival) + flash.writeTime(bytes: size).seconds,
                    lastReceipt - oneWayPacket + flash.writeTime(bytes: lastPacket).seconds)
                if offset == imageBytes { validation = flash.hashTime(bytes: imageBytes).seconds }
            }
            now = max(now + oneWay, flashFreeAt) + validation + oneWay
        }
        return .seconds(now)
    }

    /// An object of `bytes` whose Create was written at `createdAt`: when the receipt for its last
    /// packet is in (the packets streamed from Create's write response), and when its Execute can
    /// be written (that receipt in and Create answered).
    private func streamed(createdAt: Double, bytes: Int) -> (lastReceipt: Double, executeWritten: Double) {
        let createAnswered = createdAt + link.requestRoundTrip.seconds
        let lastReceipt = createdAt + link.requestWriteResponse.seconds + stream(bytes)
        return (lastReceipt, max(createAnswered, lastReceipt))
    }

    /// Streaming `bytes` in packets until the receipt for the last one arrives: the first
    /// packet's receipt round trip, the rest at the raw rate.
    private func stream(_ bytes: Int) -> Double {
        link.receiptRoundTrip.seconds + Double(max(0, bytes - link.packetBytes)) / link.rawBytesPerSecond
    }
}
