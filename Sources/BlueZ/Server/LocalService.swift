import GATT

/// A characteristic this host offers to centrals through bluetoothd (the peripheral role).
public struct LocalCharacteristic: Sendable {
    /// Runs while bluetoothd waits: it must return at once (work that takes time goes elsewhere).
    public typealias WriteHandler = @Sendable ([UInt8]) throws -> Void
    /// Runs while bluetoothd waits, like `WriteHandler`.
    public typealias ReadHandler = @Sendable () throws -> [UInt8]

    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties
    /// Runs for every value a central writes, request or command alike (bluetoothd 5.66 does not
    /// say which), in the order they came over the air. A thrown error refuses a write request.
    public var onWrite: WriteHandler?
    /// Offer bluetoothd `AcquireWrite` (needs `.writeWithoutResponse`): writes then come through
    /// a socket, not one D-Bus call each. bluetoothd 5.66 acquires the socket on the first write
    /// and keeps only a pointer to that write's bytes until the socket comes, so writes that
    /// arrive meanwhile are garbled; turn it on only where the first write is followed by a
    /// pause (the central waits for an answer), see docs/bluez-module.md.
    public var acquiresWrites: Bool
    /// Supplies the value a central reads.
    public var onRead: ReadHandler?
    /// What the link must be for a central to use it.
    public var security: LocalSecurity

    public init(
        uuid: BluetoothUUID, properties: CharacteristicProperties, onWrite: WriteHandler? = nil,
        onRead: ReadHandler? = nil, acquiresWrites: Bool = false, security: LocalSecurity = .open
    ) {
        self.uuid = uuid
        self.properties = properties
        self.onWrite = onWrite
        self.onRead = onRead
        self.acquiresWrites = acquiresWrites
        self.security = security
    }
}

/// A primary service this host offers.
public struct LocalService: Sendable {
    public var uuid: BluetoothUUID
    public var characteristics: [LocalCharacteristic]

    public init(uuid: BluetoothUUID, characteristics: [LocalCharacteristic]) {
        self.uuid = uuid
        self.characteristics = characteristics
    }
}

/// What this host advertises while serving.
public struct LocalAdvertisement: Sendable {
    public var localName: String?
    public var serviceUUIDs: [BluetoothUUID]
    /// Whether the advertisement carries the LE General Discoverable flag, as Nordic's bootloaders
    /// and Zephyr's SMP servers advertise. bluetoothd 5.82's plain discovery reports only devices
    /// that do (docs/bluez-module.md, "BlueZ 5.66 and 5.82").
    public var isDiscoverable: Bool

    public init(localName: String? = nil, serviceUUIDs: [BluetoothUUID] = [], isDiscoverable: Bool = true) {
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
        self.isDiscoverable = isDiscoverable
    }
}
