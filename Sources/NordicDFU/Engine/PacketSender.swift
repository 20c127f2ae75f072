import GATT

/// Writes firmware to the packet characteristic in packets of a fixed size.
struct PacketSender: Sendable {
    let characteristic: any GATTCharacteristic
    let packetSize: Int

    /// The packet size for this link: the link's maximum write-without-response length, capped
    /// by `maximum`, rounded down to a multiple of 4 (Secure DFU; protocol doc §2.1). Legacy DFU
    /// always uses 20 bytes (§1.1).
    static func packetSize(
        for characteristic: any GATTCharacteristic, format: DFUPackage.Format, maximum: Int
    ) async -> Int {
        guard format == .secure else { return 20 }
        let linkLimit = await characteristic.maximumWriteWithoutResponseLength
        return max(20, min(linkLimit, maximum) & ~3)
    }

    /// Writes `bytes` as consecutive packets, adding each packet's length to `counter` once it
    /// is written.
    func send(_ bytes: ArraySlice<UInt8>, counter: Locked<Int>? = nil) async throws {
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = min(start + packetSize, bytes.endIndex)
            try await characteristic.writeWithoutResponse(Array(bytes[start..<end]))
            counter?.withLock { $0 += end - start }
            start = end
        }
    }

    /// How many packets `count` bytes take.
    func packets(for count: Int) -> Int { (count + packetSize - 1) / packetSize }
}
