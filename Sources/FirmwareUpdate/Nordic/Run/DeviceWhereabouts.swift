import GATT

/// Where the device being updated can be found again after it restarts.
struct DeviceWhereabouts {
    /// The device's own (application) address, once known.
    var applicationAddress: BluetoothAddress?
    /// Whether the first connection found the device in its bootloader, which may advertise at
    /// the application's address + 1.
    var startedInBootloader = false
    /// The name the bootloader was asked to advertise, if any.
    var bootloaderName: String?
}
