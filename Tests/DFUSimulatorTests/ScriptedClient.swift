import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// A small scripted DFU client for the tests: writes what a test says, returns what the device
/// answers. It talks to the simulator only through the GATT protocols.
final class ScriptedClient {
    let central: SimulatedCentral
    let peripheral: any GATTPeripheral
    private var characteristics: [BluetoothUUID: any GATTCharacteristic] = [:]
    private var streams: [BluetoothUUID: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator] = [:]
    static let timeout = Duration.seconds(5)

    /// A client of one Secure device of `configuration` (by default the protocol doc's), already
    /// subscribed to the control point.
    static func secure(_ configuration: SimulatedDeviceConfiguration = Fixtures.docDevice()) async throws
        -> ScriptedClient
    {
        let central = try SimulatedCentral(devices: [configuration])
        let client = try await ScriptedClient(central: central, device: DeviceIdentifier("C0:DE:00:00:00:10"))
        try await client.subscribe(cp)
        return client
    }

    init(central: SimulatedCentral, device: DeviceIdentifier) async throws {
        self.central = central
        peripheral = try await central.connect(device, timeout: Self.timeout)
        for service in try await peripheral.services() {
            for characteristic in service.characteristics {
                characteristics[characteristic.uuid] = characteristic
            }
        }
    }

    var serviceUUIDs: [BluetoothUUID] {
        get async throws { try await peripheral.services().map(\.uuid) }
    }

    func characteristic(_ uuid: BluetoothUUID) throws -> any GATTCharacteristic {
        guard let characteristic = characteristics[uuid] else {
            throw GATTError.attributeNotFound(uuid.uuidString)
        }
        return characteristic
    }

    func subscribe(_ uuid: BluetoothUUID) async throws {
        streams[uuid] = try await characteristic(uuid).subscribe(timeout: Self.timeout).makeAsyncIterator()
    }

    func write(_ uuid: BluetoothUUID, _ bytes: [UInt8]) async throws {
        try await characteristic(uuid).write(bytes, timeout: Self.timeout)
    }

    func writeWithoutResponse(_ uuid: BluetoothUUID, _ bytes: [UInt8]) async throws {
        try await characteristic(uuid).writeWithoutResponse(bytes)
    }

    func read(_ uuid: BluetoothUUID) async throws -> [UInt8] {
        try await characteristic(uuid).read(timeout: Self.timeout)
    }

    /// The next notification on `uuid`; nil when the stream ended without an error.
    func next(_ uuid: BluetoothUUID) async throws -> [UInt8]? {
        guard var iterator = streams[uuid] else {
            throw GATTError.attributeNotFound("no subscription to \(uuid)")
        }
        defer { streams[uuid] = iterator }
        return try await iterator.next()
    }

    /// Writes a request and returns the notification that answers it.
    func request(_ uuid: BluetoothUUID, _ bytes: [UInt8]) async throws -> [UInt8] {
        try await write(uuid, bytes)
        guard let answer = try await next(uuid) else {
            throw GATTError.disconnected(device: "test", reason: "no answer")
        }
        return answer
    }

    /// Writes `bytes` to `uuid` in chunks of at most `payload` bytes.
    func stream(_ uuid: BluetoothUUID, _ bytes: ArraySlice<UInt8>, payload: Int) async throws {
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = min(start + payload, bytes.endIndex)
            try await writeWithoutResponse(uuid, Array(bytes[start..<end]))
            start = end
        }
    }

    var now: Duration { central.linkTime.now() }
}

extension ScriptedClient {
    static let cp = Fixtures.uuids.secureControlPoint
    static let pkt = Fixtures.uuids.securePacket

    /// Sends an init packet the way both reference libraries do (PRN off, Create, stream,
    /// Calculate Checksum, Execute); returns the Execute's response.
    func sendSecureInitPacket(_ packet: [UInt8], payload: Int = 20) async throws -> [UInt8] {
        _ = try await request(Self.cp, [0x02, 0x00, 0x00])
        let create = try await request(Self.cp, [0x01, 0x01] + Fixtures.le32(UInt32(packet.count)))
        guard create == [0x60, 0x01, 0x01] else { return create }
        try await stream(Self.pkt, packet[...], payload: payload)
        _ = try await request(Self.cp, [0x03])
        return try await request(Self.cp, [0x04])
    }

    /// Sends `image[from...]` in data objects of 4096 bytes; waits `delay` after each Create (the
    /// preparation delay, so the page erase does not make the flash queue drop packets) and
    /// for every PRN; returns the last Execute's response (or the first failing one).
    func sendSecureImage(
        _ image: [UInt8], from start: Int = 0, payload: Int = 20, prn: UInt16 = 0,
        delay: Duration = .milliseconds(400)
    ) async throws -> [UInt8] {
        _ = try await request(Self.cp, [0x02] + [UInt8(prn & 0xFF), UInt8(prn >> 8)])
        var offset = start
        var last: [UInt8] = []
        while offset < image.count {
            let size = min(4096 - offset % 4096, image.count - offset)
            if offset % 4096 == 0 {
                let create = try await request(Self.cp, [0x01, 0x02] + Fixtures.le32(UInt32(size)))
                guard create == [0x60, 0x01, 0x01] else { return create }
                if delay > .zero { try await central.linkTime.sleep(for: delay) }
            }
            var sent = offset
            var packets = 0
            while sent < offset + size {
                let end = min(sent + payload, offset + size)
                try await writeWithoutResponse(Self.pkt, Array(image[sent..<end]))
                sent = end
                packets += 1
                if prn > 0, packets % Int(prn) == 0 { _ = try await next(Self.cp) }
            }
            _ = try await request(Self.cp, [0x03])
            last = try await request(Self.cp, [0x04])
            guard last == [0x60, 0x04, 0x01] else { return last }
            offset = sent
        }
        return last
    }

    /// Select(`type`): (offset, crc).
    func select(_ type: UInt8) async throws -> (offset: UInt32, crc: UInt32) {
        let answer = try await request(Self.cp, [0x06, type])
        let response = try SecureDFUResponse(decoding: answer)
        guard case .selected(_, let offset, let crc) = response.outcome else {
            throw GATTError.operationFailed(operation: "select", reason: answer.hexString(separator: " "))
        }
        return (offset, crc)
    }
}

extension ScriptedClient {
    /// Streams a Legacy image in 20-byte packets, taking the receipt after every `prn`-th packet
    /// that leaves data expected (SDK 11 sends none on the packet that completes the image);
    /// returns the notification that follows the last packet.
    func streamLegacyImage(_ firmware: [UInt8], prn: Int) async throws -> [UInt8]? {
        let cp = Fixtures.uuids.legacyControlPoint
        var sent = 0
        var packets = 0
        while sent < firmware.count {
            let end = min(sent + 20, firmware.count)
            try await writeWithoutResponse(Fixtures.uuids.legacyPacket, Array(firmware[sent..<end]))
            sent = end
            packets += 1
            if packets % prn == 0, sent < firmware.count {
                let receipt = try await next(cp)
                XCTAssertEqual(receipt, [0x11] + Fixtures.le32(UInt32(sent)), "after packet \(packets)")
            }
        }
        return try await next(cp)
    }
}
