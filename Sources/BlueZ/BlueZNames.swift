import DBus

/// Bus names, interfaces and well-known paths of bluetoothd's D-Bus API.
package enum BlueZ {
    package static let service = "org.bluez"
    package static let adapterInterface = "org.bluez.Adapter1"
    package static let deviceInterface = "org.bluez.Device1"
    package static let serviceInterface = "org.bluez.GattService1"
    package static let characteristicInterface = "org.bluez.GattCharacteristic1"
    package static let gattManagerInterface = "org.bluez.GattManager1"
    package static let advertisingManagerInterface = "org.bluez.LEAdvertisingManager1"
    package static let advertisementInterface = "org.bluez.LEAdvertisement1"
    package static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"
    package static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// `WriteValue`'s options for a write request and a write command (built once: the engine
    /// writes the control point twice per object).
    static let writeRequestOptions = DBusValue.propertyDictionary([("type", .string("request"))])
    static let writeCommandOptions = DBusValue.propertyDictionary([("type", .string("command"))])

    /// The error name bluetoothd answers most failures with; the message says why.
    package static let failedError = "org.bluez.Error.Failed"
    /// The reason bluetoothd gives for every failed LE connect attempt; worth a retry.
    package static let localConnectAbort = "le-connection-abort-by-local"
}
