import DBus
import GATT

/// What every characteristic of one connection shares.
struct CharacteristicContext: Sendable {
    let bus: BlueZBus
    let link: LinkState
    /// The device's address, for messages.
    let device: String
    /// The device's `Device1` object path.
    let devicePath: String
    let options: BlueZCentral.Options
    /// Write commands sent through `WriteValue` and not yet answered, on this connection.
    let pendingCommands: CommandWindow
    /// Pairs when the device refuses an operation for security; nil without a pairing agent.
    var pairing: DevicePairing? = nil
}

/// A `GattCharacteristic1` of a connected device.
public final class BlueZCharacteristic: GATTCharacteristic {
    /// bluetoothd 5.66 drops (command) or refuses (request) values longer than this, whatever
    /// the MTU: its D-Bus side never passes on more than 510 bytes.
    public static let bluetoothdValueLimit = 510

    public let uuid: BluetoothUUID
    public let serviceUUID: BluetoothUUID
    public let properties: CharacteristicProperties
    /// The `GattCharacteristic1` object path.
    public let path: String

    let context: CharacteristicContext
    private let commands: CommandWriter

    init(
        context: CharacteristicContext, path: String, uuid: BluetoothUUID, serviceUUID: BluetoothUUID,
        properties: CharacteristicProperties
    ) {
        self.context = context
        self.path = path
        self.uuid = uuid
        self.serviceUUID = serviceUUID
        self.properties = properties
        commands = CommandWriter(context: context, path: path, uuid: uuid)
    }

    public var maximumWriteWithoutResponseLength: Int {
        get async {
            var mtu = commands.acquiredMTU
            if mtu == nil { mtu = try? await currentMTU() }
            return min((mtu ?? 23) - 3, Self.bluetoothdValueLimit)
        }
    }

    /// The ATT MTU of the link (`MTU` property, bluetoothd ≥ 5.62).
    func currentMTU() async throws -> Int? {
        try await context.bus.property(path, BlueZ.characteristicInterface, "MTU", timeout: .seconds(5))
            .intValue
    }

    public func read(timeout: Duration) async throws -> [UInt8] {
        try checkLink()
        try await context.pendingCommands.drain()
        let reply = try await call(
            "reading \(uuid) on \(context.device)", "ReadValue", [.propertyDictionary([])], timeout: timeout)
        return reply.first?.bytes ?? []
    }

    public func write(_ value: [UInt8], timeout: Duration) async throws {
        try checkLink()
        try await context.pendingCommands.drain()
        _ = try await call(
            "writing \(uuid) on \(context.device)", "WriteValue",
            [.bytes(value), BlueZ.writeRequestOptions], timeout: timeout)
    }

    public func writeWithoutResponse(_ value: [UInt8]) async throws {
        var written = 0
        try await writeWithoutResponse(value[...], inPacketsOf: max(1, value.count), written: &written)
    }

    /// Through `AcquireWrite`'s socket, several packets go to bluetoothd in one system call.
    public func writeWithoutResponse(
        _ bytes: ArraySlice<UInt8>, inPacketsOf packetSize: Int, written: inout Int
    ) async throws {
        try checkLink()
        try await commands.write(bytes, inPacketsOf: packetSize, written: &written)
    }

    public func subscribe(timeout: Duration) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        try checkLink()
        // bluetoothd acquires notifications, not indications
        if context.options.acquireNotify, properties.contains(.notify),
            let stream = try await NotificationSocketStream.open(self, timeout: timeout)
        {
            return stream
        }
        return try await NotificationSignalStream.open(self, timeout: timeout)
    }

    func checkLink() throws {
        if let reason = context.link.downReason {
            throw GATTError.disconnected(device: context.device, reason: reason)
        }
    }

    /// ATT errors that, answering a call, say bluetoothd's table of the device is stale: 0x01
    /// (Invalid Handle) for every call.
    static let staleTableErrors: Set<UInt8> = [0x01]

    /// What subscribing is called in messages.
    var subscribing: String { "subscribing to \(uuid) on \(context.device)" }

    /// `StartNotify`: bluetoothd writes the CCC descriptor, whose refusal also says the table is
    /// stale with 0x03 (Write Not Permitted): a CCC descriptor is writable, its writes may only
    /// need security.
    func startNotify(timeout: Duration) async throws {
        _ = try await call(subscribing, "StartNotify", [], timeout: timeout, staleTableErrors: [0x01, 0x03])
    }

    /// Calls a `GattCharacteristic1` method; a failure is reported as a `GATTError`, as
    /// `disconnected` when the link went down meanwhile or bluetoothd's table of the device is
    /// stale (`staleTableErrors`). A refusal for security pairs (once per connection) and calls
    /// again.
    func call(
        _ operation: @autoclosure () -> String, _ member: String, _ arguments: [DBusValue], timeout: Duration,
        staleTableErrors: Set<UInt8> = staleTableErrors
    ) async throws -> [DBusValue] {
        do {
            return try await context.bus.call(
                path, BlueZ.characteristicInterface, member, arguments, timeout: timeout)
        } catch {
            try checkLink()
            if let stale = await context.forgetIfTableIsStale(error, attErrors: staleTableErrors) {
                throw stale
            }
            let mapped = gattError(error, operation(), device: context.device)
            guard case GATTError.securityFailed(_, .securityRequired, _) = mapped,
                let pairing = context.pairing
            else { throw mapped }
            try await pairing.pairAfterRefusal(of: operation())
            return try await call(
                operation(), member, arguments, timeout: timeout, staleTableErrors: staleTableErrors)
        }
    }
}
