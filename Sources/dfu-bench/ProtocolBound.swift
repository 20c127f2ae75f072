import DFUSimulator
import DFUSupport

/// The shortest Secure DFU of one image a client could make on a measured link
/// (docs/engine.md, "Through bluetoothd"): one Set PRN, then for every object, the init packet's
/// included, Create answered, the object's bytes streamed at the raw rate with the checksum in
/// the receipt for its last packet, and Execute answered. Nothing else: no Select, no
/// Calculate Checksum, no wait. The span is the engine's `transferDurations` span, from the
/// first control point request to the final Execute answer. (The engine streams an object once
/// its Create is written, before the answer: it can beat the Create step by up to half a round
/// trip an object, docs/engine.md "Streaming behind Create".)
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
        now += roundTrip + stream(initPacketBytes)
        if let flash { flashFreeAt = now + oneWay + flash.settingsWriteOperations.reduce(.zero, +).seconds }
        now += roundTrip
        var offset = 0
        while offset < imageBytes {
            let size = min(link.objectSize, imageBytes - offset)
            offset += size
            if let flash {
                flashFreeAt = max(flashFreeAt, now + oneWay) + flash.eraseTime(bytes: size).seconds
            }
            now += roundTrip + stream(size)
            var validation = 0.0
            if let flash {
                // every word is written after the erase, the last packet's after it arrived
                let lastPacket = (size - 1) % link.packetBytes + 1
                let lastArrival = now - link.receiptRoundTrip.seconds / 2
                flashFreeAt = max(
                    flashFreeAt + flash.writeTime(bytes: size).seconds,
                    lastArrival + flash.writeTime(bytes: lastPacket).seconds)
                if offset == imageBytes { validation = flash.hashTime(bytes: imageBytes).seconds }
            }
            now = max(now + oneWay, flashFreeAt) + validation + oneWay
        }
        return .seconds(now)
    }

    /// Streaming `bytes` in packets until the receipt for the last one arrives: the first
    /// packet's receipt round trip, the rest at the raw rate.
    private func stream(_ bytes: Int) -> Double {
        link.receiptRoundTrip.seconds + Double(max(0, bytes - link.packetBytes)) / link.rawBytesPerSecond
    }
}
