import GATT

/// A characteristic this host offers to centrals through bluetoothd (the peripheral role).
public struct LocalCharacteristic: Sendable {
    public typealias WriteHandler = @Sendable ([UInt8]) async throws -> Void
    public typealias ReadHandler = @Sendable () async throws -> [UInt8]

    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties
    /// Runs for every value a central writes, request or command alike (bluetoothd 5.66 does not
    /// say which). A thrown error refuses a write request.
    public var onWrite: WriteHandler?
    /// Supplies the value a central reads.
    public var onRead: ReadHandler?

    public init(
        uuid: BluetoothUUID, properties: CharacteristicProperties, onWrite: WriteHandler? = nil,
        onRead: ReadHandler? = nil
    ) {
        self.uuid = uuid
        self.properties = properties
        self.onWrite = onWrite
        self.onRead = onRead
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

    public init(localName: String? = nil, serviceUUIDs: [BluetoothUUID] = []) {
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
    }
}
