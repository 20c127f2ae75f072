import BlueZ
import GATT
import Synchronization

/// A small DFU-like peripheral served on hci1 by our own `DBus` and `BlueZ` code: service 0xFE59
/// with a control point (write, notify: answers every write with `60 <opcode> 01`) and a packet
/// characteristic (write without response, write: counts what arrives), an acquired packet
/// characteristic (write without response through `AcquireWrite`), plus Device Information with a
/// Firmware Revision String.
final class TestPeripheral: Sendable {
    static let service = BluetoothUUID(short: 0xFE59)
    static let controlPoint = BluetoothUUID("8ec90001-f315-4f60-9fb8-838830daea50")!
    static let packet = BluetoothUUID("8ec90002-f315-4f60-9fb8-838830daea50")!
    /// Not a DFU characteristic: writes to it come through a socket (`acquiresWrites`).
    static let acquiredPacket = BluetoothUUID("8ec900f2-f315-4f60-9fb8-838830daea50")!
    static let deviceInformation = BluetoothUUID(short: 0x180A)
    static let firmwareRevision = BluetoothUUID(short: 0x2A26)
    static let firmwareVersion = "1.2.3"
    static let name = "dfu-sys-test"

    let server: BlueZGATTServer
    let packets: PacketLog
    let controlWrites: PacketLog
    /// Control-point and acquired-packet writes together, in the order the handlers got them.
    let arrivals: PacketLog
    /// Where it advertises: its adapter's address.
    let address: BluetoothAddress

    private init(
        server: BlueZGATTServer, address: BluetoothAddress, packets: PacketLog, controlWrites: PacketLog,
        arrivals: PacketLog
    ) {
        self.server = server
        self.address = address
        self.arrivals = arrivals
        self.packets = packets
        self.controlWrites = controlWrites
    }

    static func start(adapter: String = SystemTestEnvironment.peripheralAdapter) async throws
        -> TestPeripheral
    {
        let packets = PacketLog()
        let controlWrites = PacketLog()
        let arrivals = PacketLog()
        let server = ServerBox()
        let services = [
            LocalService(
                uuid: service,
                characteristics: [
                    LocalCharacteristic(
                        uuid: controlPoint, properties: [.write, .notify],
                        onWrite: { value in
                            controlWrites.append(value)
                            arrivals.append(value)
                            // answer after the write's own reply has gone out
                            Task { try server.value?.notify(controlPoint, [0x60, value.first ?? 0, 0x01]) }
                        }),
                    LocalCharacteristic(
                        uuid: packet, properties: [.writeWithoutResponse, .write],
                        onWrite: { value in packets.append(value) }),
                    LocalCharacteristic(
                        uuid: acquiredPacket, properties: [.writeWithoutResponse],
                        onWrite: { value in arrivals.append(value) }, acquiresWrites: true),
                ]),
            LocalService(
                uuid: deviceInformation,
                characteristics: [
                    LocalCharacteristic(
                        uuid: firmwareRevision, properties: [.read], onRead: { Array(firmwareVersion.utf8) })
                ]),
        ]
        // Not discoverable: a central must find it all the same (bluetoothd 5.82 reports such a
        // device only to a discovery with a Pattern, docs/bluez-module.md).
        let advertisement = LocalAdvertisement(
            localName: name, serviceUUIDs: [service], isDiscoverable: false)
        // two identical advertisements: the controller rotates them, so that btvirt reports the
        // peripheral again every second and a scanner that starts later sees it
        let started = try await BlueZGATTServer.start(
            adapter: adapter, services: services, advertisements: [advertisement, advertisement])
        server.set(started)
        guard let address = BluetoothAddress(started.adapterAddress) else {
            await started.stop()
            throw GATTError.operationFailed(
                operation: "starting the test peripheral on \(adapter)",
                reason: "its adapter reports '\(started.adapterAddress)', not a Bluetooth address")
        }
        return TestPeripheral(
            server: started, address: address, packets: packets, controlWrites: controlWrites,
            arrivals: arrivals)
    }

    func stop() async { await server.stop() }

    /// Waits (bounded) until bluetoothd has told the application that the central subscribed
    /// to `uuid`: it does so after answering the central's CCCD write, so a notification sent
    /// right after the central's subscribe call returns could find no subscriber yet.
    func waitForSubscription(to uuid: BluetoothUUID, timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !server.isSubscribed(uuid) {
            guard ContinuousClock.now < deadline else {
                throw GATTError.timeout(operation: "the central to subscribe to \(uuid)", seconds: 10)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// The server, once it exists, for handlers created before it.
final class ServerBox: Sendable {
    private let server = Mutex<BlueZGATTServer?>(nil)
    var value: BlueZGATTServer? { server.withLock { $0 } }
    func set(_ value: BlueZGATTServer) { server.withLock { $0 = value } }
}

/// What arrived on one characteristic, in order.
final class PacketLog: Sendable {
    struct State {
        var values: [[UInt8]] = []
        var count = 0
        var bytes = 0
        var first: ContinuousClock.Instant?
        var last: ContinuousClock.Instant?
        /// Keep values only while this is true (a flood of them is only counted).
        var keepValues = true
    }
    let state = Mutex(State())

    func append(_ value: [UInt8]) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.count += 1
            state.bytes += value.count
            if state.first == nil { state.first = now }
            state.last = now
            if state.keepValues { state.values.append(value) }
        }
    }

    var count: Int { state.withLock { $0.count } }
    var values: [[UInt8]] { state.withLock { $0.values } }

    func reset(keepValues: Bool = true) { state.withLock { $0 = State(keepValues: keepValues) } }

    /// Waits (bounded) until `count` values have arrived; returns how many did.
    @discardableResult
    func wait(forCount count: Int, timeout: Duration) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while self.count < count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return self.count
    }
}
