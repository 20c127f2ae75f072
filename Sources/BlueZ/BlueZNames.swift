/// Bus names, interfaces and well-known paths of bluetoothd's D-Bus API.
enum BlueZ {
    static let service = "org.bluez"
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"
    static let serviceInterface = "org.bluez.GattService1"
    static let characteristicInterface = "org.bluez.GattCharacteristic1"
    static let gattManagerInterface = "org.bluez.GattManager1"
    static let advertisingManagerInterface = "org.bluez.LEAdvertisingManager1"
    static let advertisementInterface = "org.bluez.LEAdvertisement1"
    static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// The error name bluetoothd answers most failures with; the message says why.
    static let failedError = "org.bluez.Error.Failed"
    /// The reason bluetoothd gives for every failed LE connect attempt; worth a retry.
    static let localConnectAbort = "le-connection-abort-by-local"
}
