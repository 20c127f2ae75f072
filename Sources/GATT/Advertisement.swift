/// One device as seen while scanning, with the latest data it advertised.
public struct Advertisement: Hashable, Sendable {
    public enum AddressType: String, Hashable, Sendable {
        case `public`
        case random
    }

    public var address: BluetoothAddress
    public var addressType: AddressType
    public var name: String?
    public var rssi: Int?
    public var serviceUUIDs: [BluetoothUUID]
    public var serviceData: [BluetoothUUID: [UInt8]]

    public init(
        address: BluetoothAddress, addressType: AddressType = .random, name: String? = nil, rssi: Int? = nil,
        serviceUUIDs: [BluetoothUUID] = [], serviceData: [BluetoothUUID: [UInt8]] = [:]
    ) {
        self.address = address
        self.addressType = addressType
        self.name = name
        self.rssi = rssi
        self.serviceUUIDs = serviceUUIDs
        self.serviceData = serviceData
    }
}

/// Which advertisements a scan reports.
public struct ScanFilter: Hashable, Sendable {
    /// Report only devices advertising at least one of these services; empty: all devices.
    public var serviceUUIDs: [BluetoothUUID]

    public init(serviceUUIDs: [BluetoothUUID] = []) { self.serviceUUIDs = serviceUUIDs }

    /// Whether an advertisement passes this filter.
    public func matches(_ advertisement: Advertisement) -> Bool {
        serviceUUIDs.isEmpty || !Set(serviceUUIDs).isDisjoint(with: advertisement.serviceUUIDs)
    }
}
