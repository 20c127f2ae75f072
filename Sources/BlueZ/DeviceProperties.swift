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
    /// Whether bluetoothd holds keys from pairing with this device.
    var isPaired: Bool { values["Paired"]?.boolValue ?? false }

    /// Why a link that came up dropped before its services were resolved, as far as bluetoothd
    /// shows it. bluetoothd encrypts a bonded device's link at once; a device that lost its keys
    /// answers "PIN or key missing" and the link drops, a reason bluetoothd (5.66, 5.82) does not
    /// pass on: without the kernel's word (`LostBondWatch`, which needs privilege) the bond is the
    /// one hint there is (docs/pairing.md, "A device that lost its bond").
    var droppedWhileResolvingServices: String {
        let dropped = "the link dropped while resolving services"
        guard isPaired else { return dropped }
        return dropped
            + "; this host holds a bond with the device, and a device that lost its keys (reset or erased) "
            + "drops every link encrypted with them: if it did, remove the bond and pair again"
    }

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
