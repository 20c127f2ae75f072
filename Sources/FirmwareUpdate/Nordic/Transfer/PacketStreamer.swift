import DFUSupport
import GATT

/// Writes firmware to the packet characteristic in packets of a fixed size, in batches that end
/// where the device's next packet receipt is due, and checks each receipt.
package struct PacketStreamer {
    let characteristic: any GATTCharacteristic
    let packetSize: Int
    let session: UpdateSession

    /// Packets per batch when no receipts pace the stream: how often pause is honoured.
    static let unpacedBatch = 16

    /// The packet size for this link: the link's maximum write-without-response length, capped
    /// by `maximum`, rounded down to a multiple of 4 (Secure DFU; protocol doc §2.1).
    package static func securePacketSize(for characteristic: any GATTCharacteristic, maximum: Int) async
        -> Int
    {
        let linkLimit = await characteristic.maximumWriteWithoutResponseLength
        return max(20, min(linkLimit, maximum) & ~3)
    }

    /// Legacy DFU always writes 20-byte packets (protocol doc §1.1).
    static let legacyPacketSize = 20

    /// How many packets `count` bytes take.
    func packets(for count: Int) -> Int { (count + packetSize - 1) / packetSize }

    /// Writes `bytes` as consecutive packets, handed to the transport together; firmware bytes
    /// (their indices are offsets in the part's image) count towards the result. The writes are bounded by the transport
    /// (`GATTCharacteristic.writeWithoutResponse`): a task and a timer per batch of its own cost
    /// more CPU than the packets (docs/engine.md, "CPU").
    func write(_ bytes: ArraySlice<UInt8>, firmware: Bool) async throws {
        var written = 0
        // also what went out before a failure: a resume does not send it again
        defer {
            if firmware {
                let range = bytes.startIndex..<bytes.startIndex + written
                session.tally.firmwareWrites.withLock { $0.record(range) }
            }
        }
        do {
            try await characteristic.writeWithoutResponse(bytes, inPacketsOf: packetSize, written: &written)
        } catch {
            throw session.mapped(error, during: .writingCharacteristicFailed)
        }
    }

    /// How a stream ended.
    enum End<Notification> {
        /// Every byte went out; `receiptAtEnd` is the receipt for the last packet, when one was
        /// due there and arrived.
        case finished(receiptAtEnd: Notification?)
        /// A receipt showed a problem, or did not come, for the packets up to `sentUpTo` (an
        /// offset of `bytes`): the caller asks the device what it holds.
        case interrupted(sentUpTo: Int)
    }

    /// Streams `bytes` (object offsets), counting packets in `channel`'s ledger and waiting for
    /// each receipt as it falls due. `check` judges a receipt against the offset sent up to;
    /// false stops the stream. `receiptOnLastPacket` is false where the device answers the last
    /// packet with a response instead (Legacy DFU, protocol doc §1.4). Firmware bytes go with a
    /// `meter`; a Secure init packet goes without. `beforeReceipt` runs before every wait for a
    /// receipt (a request's answer still to take comes first).
    func stream<Notification>(
        _ bytes: ArraySlice<UInt8>, through channel: ControlPointChannel<Notification>, meter: ProgressMeter?,
        receiptOnLastPacket: Bool, beforeReceipt: () async throws -> Void = {},
        check: (Notification, _ sentUpTo: Int) throws -> Bool
    ) async throws -> End<Notification> {
        var start = bytes.startIndex
        while start < bytes.endIndex {
            try await session.controller.checkpoint()
            let batch = channel.ledger.packetsUntilNextReceipt ?? Self.unpacedBatch
            let end = min(start + batch * packetSize, bytes.endIndex)
            try await write(bytes[start..<end], firmware: meter != nil)
            channel.ledger.count(packets: packets(for: end - start))
            start = end
            if let report = meter?.update(end) { session.emit(.progress(report)) }
            let isLast = end == bytes.endIndex
            guard channel.ledger.due > 0, !isLast || receiptOnLastPacket else { continue }
            try await beforeReceipt()
            guard let receipt = try await channel.receipt(), try check(receipt, end) else {
                return .interrupted(sentUpTo: end)
            }
            if isLast { return .finished(receiptAtEnd: receipt) }
        }
        return .finished(receiptAtEnd: nil)
    }
}
