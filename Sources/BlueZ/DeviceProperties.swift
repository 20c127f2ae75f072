import DBus
import GATT

/// What bluetoothd knows of one `Device1`, read from its properties.
struct DeviceProperties: Sendable {
    var path: String
    var values: [String: DBusValue]

    var address: String? { values["Address"]?.stringValue }
    var name: String? { values["Name"]?.stringValue }
    var isConnected: Bool { values["Connected"]?.boolValue ?? false }
    var servicesResolved: Bool { values["ServicesResolved"]?.boolValue ?? false }

    /// The advertisement this device stands for, or `nil` before bluetoothd knows its address.
    var advertisement: Advertisement? {
        guard let address = address.flatMap(BluetoothAddress.init) else { return nil }
        let addressType: Advertisement.AddressType =
            values["AddressType"]?.stringValue == "public" ? .public : .random
        var serviceData: [BluetoothUUID: [UInt8]] = [:]
        for (key, value) in values["ServiceData"]?.stringKeyedDictionary ?? [:] {
            if let uuid = BluetoothUUID(key), let bytes = value.bytes { serviceData[uuid] = bytes }
        }
        return Advertisement(
            address: address, addressType: addressType, name: name,
            rssi: values["RSSI"]?.intValue,
            serviceUUIDs: (values["UUIDs"]?.stringArrayValue ?? []).compactMap(BluetoothUUID.init),
            serviceData: serviceData)
    }

    /// Applies a `PropertiesChanged` signal's changed and invalidated properties.
    mutating func apply(changed: [String: DBusValue], invalidated: [String]) {
        values.merge(changed) { _, new in new }
        for name in invalidated { values[name] = nil }
    }
}
