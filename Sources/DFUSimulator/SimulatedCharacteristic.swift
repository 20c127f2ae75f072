import GATT

/// A characteristic of a connected simulated device. Every operation costs what the link model
/// says (docs/simulator.md) on the central's virtual clock and returns without waiting in real time.
final class SimulatedCharacteristic: GATTCharacteristic {
    let uuid: BluetoothUUID
    let serviceUUID: BluetoothUUID
    let properties: CharacteristicProperties
    private let requiresEncryption: Bool
    private let world: SimulationWorld
    private let device: Int
    private let connection: Int
    private let mtu: Int
    private let timing: SimulationTiming

    init(
        spec: CharacteristicSpec, service: BluetoothUUID, world: SimulationWorld, device: Int,
        connection: Int, mtu: Int,
        timing: SimulationTiming
    ) {
        uuid = spec.uuid
        serviceUUID = service
        properties = spec.properties
        requiresEncryption = spec.requiresEncryption
        self.world = world
        self.device = device
        self.connection = connection
        self.mtu = mtu
        self.timing = timing
    }

    var maximumWriteWithoutResponseLength: Int { mtu - 3 }

    func read(timeout: Duration) async throws -> [UInt8] { try await readValue() }

    private func readValue() async throws -> [UInt8] {
        guard properties.contains(.read) else { throw refused("read", "the characteristic is not readable") }
        return try await paced { state, link in
            let event = link.schedule.transmit(slots: 1, now: &state.now)
            let value = state.devices[device].firmware.read(uuid, core: state.devices[device].core) ?? []
            link.schedule.centralReceived(inEvent: event + 1, now: &state.now)
            return value
        }
    }

    func write(_ value: [UInt8], timeout: Duration) async throws {
        guard properties.contains(.write) else {
            throw refused("write", "the characteristic takes no write requests")
        }
        try checkLength(value)
        try await paced { state, link in
            try secure(&link, in: &state, for: "write")
            if !properties.isDisjoint(with: [.notify, .indicate]), link.subscriptions[uuid]?.isOpen != true {
                throw refused(
                    "write",
                    "ATT error 0xFD: notifications or indications are not enabled (CCCD improperly configured)"
                )
            }
            let event = link.schedule.transmit(slots: timing.slots(forPayload: value.count), now: &state.now)
            let output = state.deliver(value, to: uuid, of: device, at: link.schedule.time(ofEvent: event))
            SimulationWorld.apply(output, device: device, link: &link, triggerEvent: event, in: &state)
            // The write response comes in the next event, whether or not the device reset since.
            link.schedule.centralReceived(inEvent: event + 1, now: &state.now)
        }
    }

    func writeWithoutResponse(_ value: [UInt8]) async throws {
        guard properties.contains(.writeWithoutResponse) else {
            throw refused("write without response", "the characteristic takes no write commands")
        }
        try checkLength(value)
        try await paced { state, link in
            try secure(&link, in: &state, for: "write without response")
            let event = link.schedule.transmit(slots: timing.slots(forPayload: value.count), now: &state.now)
            let output = state.deliver(value, to: uuid, of: device, at: link.schedule.time(ofEvent: event))
            if output.notifications.isEmpty, !output.dropsLink, output.reset == nil { return }
            SimulationWorld.apply(output, device: device, link: &link, triggerEvent: event, in: &state)
        }
    }

    func subscribe(timeout: Duration) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        guard !properties.isDisjoint(with: [.notify, .indicate]) else {
            throw refused("subscribe", "the characteristic neither notifies nor indicates")
        }
        let channel = NotificationChannel { [world, device, connection] event in
            world.received(event: event, device: device, connection: connection)
        }
        try world.withLink(device: device, connection: connection) { state, link in
            try secure(&link, in: &state, for: "subscribe")
            // The CCCD write is a write request.
            let event = link.schedule.transmit(slots: 1, now: &state.now)
            link.subscriptions[uuid]?.finish(throwing: nil)
            link.subscriptions[uuid] = channel
            link.schedule.centralReceived(inEvent: event + 1, now: &state.now)
        }
        return channel.stream()
    }

    /// Runs `body` on the link, then waits the real time that `timing.realTimeFactor` asks for
    /// the virtual time it took.
    private func paced<Result>(
        _ body: (inout SimulationWorld.State, inout SimulatedConnection) throws -> Result
    )
        async throws -> Result
    {
        let (result, elapsed) = try world.withLink(device: device, connection: connection) { state, link in
            let start = state.now
            let result = try body(&state, &link)
            return (result, state.now - start)
        }
        if timing.realTimeFactor > 0, elapsed > 0 {
            try await Task.sleep(for: .nanoseconds(Int64(Double(elapsed) * timing.realTimeFactor)))
        }
        return result
    }

    /// A characteristic that needs an encrypted link gets it first, as bluetoothd gets it
    /// after ATT insufficient encryption.
    private func secure(
        _ link: inout SimulatedConnection, in state: inout SimulationWorld.State, for operation: String
    ) throws {
        guard requiresEncryption else { return }
        try state.encrypt(&link, device: device, for: "\(operation) \(uuid)")
    }

    private func checkLength(_ value: [UInt8]) throws {
        guard value.count <= mtu - 3 else {
            throw refused(
                "write", "\(value.count) bytes is more than the \(mtu - 3) the MTU of \(mtu) allows")
        }
    }

    private func refused(_ operation: String, _ reason: String) -> GATTError {
        .operationFailed(operation: "\(operation) \(uuid)", reason: reason)
    }
}
