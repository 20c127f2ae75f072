import GATT

/// The services and characteristics of both DFU protocols (protocol doc §0.1). Every one can be
/// replaced, for devices built with custom UUIDs.
public struct DFUUUIDs: Hashable, Sendable {
    public var legacyService = BluetoothUUID("00001530-1212-EFDE-1523-785FEABCD123")!
    public var legacyControlPoint = BluetoothUUID("00001531-1212-EFDE-1523-785FEABCD123")!
    public var legacyPacket = BluetoothUUID("00001532-1212-EFDE-1523-785FEABCD123")!
    public var legacyVersion = BluetoothUUID("00001534-1212-EFDE-1523-785FEABCD123")!
    public var secureService = BluetoothUUID(short: 0xFE59)
    public var secureControlPoint = BluetoothUUID("8EC90001-F315-4F60-9FB8-838830DAEA50")!
    public var securePacket = BluetoothUUID("8EC90002-F315-4F60-9FB8-838830DAEA50")!
    public var buttonlessWithoutBonds = BluetoothUUID("8EC90003-F315-4F60-9FB8-838830DAEA50")!
    public var buttonlessWithBonds = BluetoothUUID("8EC90004-F315-4F60-9FB8-838830DAEA50")!
    /// SDK 12's experimental buttonless service and characteristic share this UUID.
    public var experimentalButtonless = BluetoothUUID("8E400001-F315-4F60-9FB8-838830DAEA50")!

    public init() {}
}

/// Device Information Service UUIDs, where applications report their versions.
public enum DeviceInformationUUIDs {
    public static let service = BluetoothUUID(short: 0x180A)
    public static let firmwareRevision = BluetoothUUID(short: 0x2A26)
    public static let hardwareRevision = BluetoothUUID(short: 0x2A27)
    public static let softwareRevision = BluetoothUUID(short: 0x2A28)
}
