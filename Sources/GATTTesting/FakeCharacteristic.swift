import GATT

/// A characteristic that answers as the one it wraps, except where a hook says otherwise.
public final class FakeCharacteristic: GATTCharacteristic {
    /// Reads in place of the wrapped characteristic.
    public typealias Read =
        @Sendable (_ timeout: Duration, _ real: any GATTCharacteristic) async throws -> [UInt8]
    /// Writes a request in place of the wrapped characteristic.
    public typealias Write =
        @Sendable (_ value: [UInt8], _ timeout: Duration, _ real: any GATTCharacteristic) async throws -> Void
    /// Writes a command (without response) in place of the wrapped characteristic.
    public typealias WriteCommand =
        @Sendable (_ value: [UInt8], _ real: any GATTCharacteristic) async throws -> Void
    /// Subscribes in place of the wrapped characteristic.
    public typealias Subscribe =
        @Sendable (_ timeout: Duration, _ real: any GATTCharacteristic) async throws ->
        AsyncThrowingStream<[UInt8], any Error>

    private let real: any GATTCharacteristic
    private let readHook: Read?
    private let writeHook: Write?
    private let commandHook: WriteCommand?
    private let subscribeHook: Subscribe?

    /// Wraps `real`; a nil hook leaves that part of it as it is.
    public init(
        _ real: any GATTCharacteristic, read: Read? = nil, write: Write? = nil,
        writeWithoutResponse: WriteCommand? = nil, subscribe: Subscribe? = nil
    ) {
        self.real = real
        readHook = read
        writeHook = write
        commandHook = writeWithoutResponse
        subscribeHook = subscribe
    }

    public var uuid: BluetoothUUID { real.uuid }
    public var serviceUUID: BluetoothUUID { real.serviceUUID }
    public var properties: CharacteristicProperties { real.properties }
    public var maximumWriteWithoutResponseLength: Int {
        get async { await real.maximumWriteWithoutResponseLength }
    }

    public func read(timeout: Duration) async throws -> [UInt8] {
        guard let readHook else { return try await real.read(timeout: timeout) }
        return try await readHook(timeout, real)
    }

    public func write(_ value: [UInt8], timeout: Duration) async throws {
        guard let writeHook else { return try await real.write(value, timeout: timeout) }
        try await writeHook(value, timeout, real)
    }

    public func writeWithoutResponse(_ value: [UInt8]) async throws {
        guard let commandHook else { return try await real.writeWithoutResponse(value) }
        try await commandHook(value, real)
    }

    public func writeWithoutResponse(
        _ bytes: ArraySlice<UInt8>, inPacketsOf packetSize: Int, written: inout Int
    )
        async throws
    {
        guard commandHook != nil else {
            return try await real.writeWithoutResponse(bytes, inPacketsOf: packetSize, written: &written)
        }
        // each packet through the hook, as the protocol's default writes them
        for packet in bytes.packetRanges(ofSize: packetSize) {
            try await writeWithoutResponse(Array(bytes[packet]))
            written += packet.count
        }
    }

    public func subscribe(timeout: Duration) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        guard let subscribeHook else { return try await real.subscribe(timeout: timeout) }
        return try await subscribeHook(timeout, real)
    }
}
