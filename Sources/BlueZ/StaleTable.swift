import DBus
import GATT

extension CharacteristicContext {
    /// When `error` says that the device has no such attribute at the handle bluetoothd used
    /// (one of `attErrors`; ATT error 0x01, Invalid Handle, for every call), bluetoothd's cached
    /// GATT table of the device is stale: the device changed its table (e.g. reset into its
    /// bootloader at the same address) and bluetoothd did not discover it again, and it keeps the
    /// stale table across reconnections. Forgetting the device drops the cache, so the next
    /// connection discovers afresh: the device is removed from bluetoothd (unless it is paired:
    /// its keys would go too) and the link counts as down. Returns the `disconnected` error to
    /// throw, or nil for any other error.
    func forgetIfTableIsStale(_ error: any Error, attErrors: Set<UInt8>) async -> GATTError? {
        guard let error = error as? DBusError, error.name == BlueZ.failedError,
            let code = Self.attError(in: error.message), attErrors.contains(code)
        else { return nil }
        guard await bus.removeUnpairedDevice(devicePath) else { return nil }
        let reason =
            "bluetoothd's cached GATT table of the device is stale (\(error.message)); "
            + "removed the device from bluetoothd, so that the next connection discovers its services again"
        link.markDown(reason)
        return .disconnected(device: device, reason: reason)
    }

    /// The code of bluetoothd's "… ATT error: 0x01" message.
    private static func attError(in message: String) -> UInt8? {
        guard let range = message.range(of: "ATT error: 0x", options: .backwards) else { return nil }
        return UInt8(message[range.upperBound...], radix: 16)
    }
}

extension BlueZBus {
    /// Removes the device from bluetoothd, and its cached GATT table with it, unless it is
    /// paired (its keys would go too). Returns whether it was removed.
    func removeUnpairedDevice(_ devicePath: String) async -> Bool {
        let paired = try? await property(devicePath, BlueZ.deviceInterface, "Paired", timeout: .seconds(5))
        guard paired?.boolValue == false else { return false }
        let adapterPath = String(devicePath[..<(devicePath.lastIndex(of: "/") ?? devicePath.endIndex)])
        _ = try? await call(
            adapterPath, BlueZ.adapterInterface, "RemoveDevice", [.objectPath(devicePath)],
            timeout: .seconds(15))
        return true
    }
}
