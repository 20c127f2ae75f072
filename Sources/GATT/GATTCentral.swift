/// The central side of a GATT transport: finds devices and connects to them.
///
/// Implemented on BlueZ (`BlueZ` module) and by the in-process simulated device
/// (`DFUSimulator`). Every wait is bounded by the timeout the caller gives.
public protocol GATTCentral: Sendable {
    /// The time base on which this transport's links run.
    var linkTime: any LinkTime { get }

    /// Advertisements that pass `filter`, each device reported again when its data changes; the
    /// stream finishes when `timeout` has passed or the consumer stops iterating.
    func scan(_ filter: ScanFilter, timeout: Duration) -> AsyncThrowingStream<Advertisement, any Error>

    /// Connects and resolves services. A name is looked up by scanning first.
    /// Throws `GATTError.connectionFailed` or `.timeout`.
    func connect(_ device: DeviceIdentifier, timeout: Duration) async throws -> any GATTPeripheral

    /// The thread this transport reads on, as an executor, if it has one: a task that prefers
    /// it takes each answer and notification where it was read, without a hand-over between
    /// threads. `nil`: the global executor.
    var taskExecutor: (any TaskExecutor)? { get }
}

extension GATTCentral {
    public var taskExecutor: (any TaskExecutor)? { nil }
}

/// A connected device.
public protocol GATTPeripheral: AnyObject, Sendable {
    /// The device's address, as the transport reports it.
    var address: BluetoothAddress { get }
    /// The advertised or GAP name, when known.
    var name: String? { get }
    /// The ATT MTU in use on this link.
    var mtu: Int { get async }
    /// Whether the link is still up.
    var isConnected: Bool { get async }

    /// The services found on the device, each with its characteristics.
    func services() async throws -> [GATTService]

    /// Drops the link; returns once it is down. Does nothing when it is already down.
    func disconnect() async

    /// Returns once the link is down (for any reason); throws `GATTError.timeout` otherwise.
    func waitForDisconnection(timeout: Duration) async throws

    /// Drops the link and makes the next connection discover the device's services afresh,
    /// where the transport keeps a table of them between connections: for a device that may
    /// have changed its table at the same address (e.g. reset into its bootloader) while the
    /// transport listed the table it had kept.
    func disconnectDiscardingCachedServices() async

    /// Waits, on this link, for the device's services to change (a Service Changed indication
    /// and the transport's discovery after it) until `isWanted` accepts them; returns them, or
    /// nil when `timeout` passes first. For a bonded device at the same address that the
    /// transport listed with the table it kept (an nRF5 bootloader entered with bonds indicates
    /// Service Changed once the link is encrypted).
    func servicesAfterChange(
        timeout: Duration, until isWanted: @escaping @Sendable ([GATTService]) -> Bool
    ) async throws -> [GATTService]?
}

/// A primary service and its characteristics.
public struct GATTService: Sendable {
    public var uuid: BluetoothUUID
    public var characteristics: [any GATTCharacteristic]

    public init(uuid: BluetoothUUID, characteristics: [any GATTCharacteristic]) {
        self.uuid = uuid
        self.characteristics = characteristics
    }

    /// The first characteristic with `uuid`, if any.
    public func characteristic(_ uuid: BluetoothUUID) -> (any GATTCharacteristic)? {
        characteristics.first { $0.uuid == uuid }
    }
}

extension GATTPeripheral {
    /// A transport that keeps no table between connections only disconnects.
    public func disconnectDiscardingCachedServices() async { await disconnect() }

    /// A transport that reads the table afresh at every connection has nothing to wait for.
    public func servicesAfterChange(
        timeout: Duration, until isWanted: @escaping @Sendable ([GATTService]) -> Bool
    ) async throws -> [GATTService]? { nil }

    /// The first service with `uuid`, if the device has one.
    public func service(_ uuid: BluetoothUUID) async throws -> GATTService? {
        try await services().first { $0.uuid == uuid }
    }
}

/// One characteristic of a connected device.
public protocol GATTCharacteristic: AnyObject, Sendable {
    var uuid: BluetoothUUID { get }
    var serviceUUID: BluetoothUUID { get }
    var properties: CharacteristicProperties { get }

    /// Largest value `writeWithoutResponse` delivers intact on this link.
    var maximumWriteWithoutResponseLength: Int { get async }

    func read(timeout: Duration) async throws -> [UInt8]

    /// Write request: returns when the device acknowledged it.
    func write(_ value: [UInt8], timeout: Duration) async throws

    /// Write command: returns once the value is queued on the link. Suspends while the link's
    /// queue is full (flow control), so a sender cannot outrun the radio, but not for ever: a
    /// queue that stays full fails with `GATTError.timeout` (callers stream many values and do
    /// not bound each write themselves).
    func writeWithoutResponse(_ value: [UInt8]) async throws

    /// Write commands of `packetSize` bytes each from `bytes` (the last may be shorter; empty
    /// `bytes` are one empty value), in order, bounded as `writeWithoutResponse(_:)`. Adds the
    /// bytes of each packet handed to the link to `written`, also of those before a packet that
    /// fails. A transport that can hand several values to the link at once does so; the default
    /// writes them one by one.
    func writeWithoutResponse(_ bytes: ArraySlice<UInt8>, inPacketsOf packetSize: Int, written: inout Int)
        async throws

    /// Enables notifications (or indications, whichever the characteristic offers) and returns
    /// the values as they arrive. The stream ends with `GATTError.disconnected` when the link
    /// drops, and cancelling its iteration unsubscribes.
    func subscribe(timeout: Duration) async throws -> AsyncThrowingStream<[UInt8], any Error>
}

extension GATTCharacteristic {
    public func writeWithoutResponse(
        _ bytes: ArraySlice<UInt8>, inPacketsOf packetSize: Int, written: inout Int
    ) async throws {
        for packet in bytes.packetRanges(ofSize: packetSize) {
            try await writeWithoutResponse(Array(bytes[packet]))
            written += packet.count
        }
    }
}
