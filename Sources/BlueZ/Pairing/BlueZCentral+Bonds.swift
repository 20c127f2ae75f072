import DBus
import GATT

extension BlueZCentral: PairingCentral {
    /// Whether bluetoothd holds a pairing (keys) for the device at `address`; false for a
    /// device it does not know.
    public func isPaired(address: BluetoothAddress) async throws -> Bool {
        try await bus.isPaired(adapter.devicePath(for: address.description), device: address.description)
    }

    /// Without a pairing agent (no pairing settings) there is nobody to ask: it does nothing.
    public func usePasskey(_ source: PasskeySource?, for address: BluetoothAddress) {
        agent?.usePasskey(source, for: address.description)
    }

    /// `removeDevice(address:)`: bluetoothd forgets the bond and its cache of the device.
    public func removeBond(address: BluetoothAddress) async throws {
        try await removeDevice(address: address)
    }
}

extension BlueZBus {
    /// `Device1.Paired` of the device at `path` (`device` names it in messages); false when
    /// bluetoothd does not know the device.
    func isPaired(_ path: String, device: String) async throws -> Bool {
        do {
            return try await property(path, BlueZ.deviceInterface, "Paired", timeout: .seconds(5)).boolValue
                ?? false
        } catch let error as DBusError
            where error.name == DBusError.Name.unknownObject || error.name == DBusError.Name.unknownMethod
        {
            return false
        } catch {
            throw gattError(error, "reading whether \(device) is paired", device: device)
        }
    }
}
