/// A central that pairs with devices that ask for security (BlueZ, docs/pairing.md): what a
/// fleet needs of it to pair each device with its own passkey source and to keep bluetoothd's
/// storage from filling with the bonds of thousands of devices.
public protocol PairingCentral: GATTCentral {
    /// Makes `source` (nil: the central's own) the passkey source for the device at `address`
    /// when it asks for a passkey while pairing.
    func usePasskey(_ source: PasskeySource?, for address: BluetoothAddress)

    /// Whether this host holds a bond (keys) for the device at `address`.
    func isPaired(address: BluetoothAddress) async throws -> Bool

    /// Removes this host's bond with the device at `address` (and what it knows of the device).
    func removeBond(address: BluetoothAddress) async throws
}
