import ArgumentParser
import BlueZ
import NordicDFU

/// Secure DFU as peers make it today, for `dfu-bench link` to compare the updater with on the
/// same link: Nordic's Android and iOS DFU libraries with their current defaults (packets of the
/// link's size, a packet receipt every 12 packets that the client waits for before it goes on, no
/// preparation delay), written plainly. Every request is answered before the next one, and every
/// object is checked with Calculate Checksum before its Execute. No resume: the device is fresh.
struct PlainSecureClient {
    static let receiptInterval = 12

    let link: SecureDFULink

    /// Connects from `adapter` to the device at `address` and sends `package`'s image; returns
    /// the transfer time (`update`).
    static func send(_ package: DFUPackage, to address: String, from adapter: String) async throws -> Duration
    {
        let image = package.images[0]
        return try await SecureDFULink.withLink(
            central: try await BlueZCentral(adapter: adapter), address: address
        ) {
            try await PlainSecureClient(link: $0).update(
                initPacket: image.initPacket ?? [], firmware: image.firmware)
        }
    }

    /// Sends the init packet and the image; returns the span from the first control point request
    /// to the final Execute answer (the span of the engine's `transferDurations`).
    func update(initPacket: [UInt8], firmware: [UInt8]) async throws -> Duration {
        let packetBytes = await link.packetBytes
        let start = ContinuousClock.now
        _ = try await link.require(.setPacketReceiptNotification(0))
        _ = try await link.require(.select(.command))
        var initCRC = CRC32()
        try await send(
            initPacket[...], as: .command, crc: &initCRC, receiptEvery: 0, packetBytes: packetBytes)
        _ = try await link.require(.setPacketReceiptNotification(UInt16(Self.receiptInterval)))
        guard case .selected(let maximumSize, _, _) = try await link.require(.select(.data)).outcome,
            maximumSize > 0
        else { throw ValidationError("Select (data) returned no object size") }
        var crc = CRC32()
        var offset = 0
        while offset < firmware.count {
            let object = firmware[offset..<min(offset + Int(maximumSize), firmware.count)]
            try await send(
                object, as: .data, crc: &crc, receiptEvery: Self.receiptInterval, packetBytes: packetBytes)
            offset = object.endIndex
        }
        return ContinuousClock.now - start
    }

    /// Create, the object's packets (waiting for each receipt), Calculate Checksum, Execute.
    /// `object`'s indices are its offsets in the stream `crc` covers.
    private func send(
        _ object: ArraySlice<UInt8>, as type: SecureObjectType, crc: inout CRC32, receiptEvery: Int,
        packetBytes: Int
    ) async throws {
        _ = try await link.require(.create(type, size: UInt32(object.count)))
        var packets = 0
        for packetStart in stride(from: object.startIndex, to: object.endIndex, by: packetBytes) {
            try await link.packet.writeWithoutResponse(
                Array(object[packetStart..<min(packetStart + packetBytes, object.endIndex)]))
            packets += 1
            // the device counts from the Create (SDK 15.3 nrf_dfu_ble.c)
            if receiptEvery > 0, packets % receiptEvery == 0 {
                guard case .checksum = try await link.receipt() else {
                    throw ValidationError("a packet of the \(type) object was refused")
                }
            }
        }
        crc.update(object)
        guard case .checksum(let offset, let value) = try await link.require(.calculateChecksum).outcome,
            offset == object.endIndex, value == crc.value
        else { throw ValidationError("the device's checksum does not match the \(type) object sent") }
        _ = try await link.require(.execute)
    }
}
