import DBus
import GATT

extension CharacteristicContext {
    /// When `error` says that the device has no attribute at the handle bluetoothd used (ATT error
    /// 0x01, Invalid Handle), bluetoothd's cached GATT table of the device is stale: the device
    /// changed its table (e.g. reset into its bootloader at the same address) and bluetoothd did
    /// not discover it again, and it keeps the stale table across reconnections. Forgetting the
    /// device drops the cache, so the next connection discovers afresh: the device is removed
    /// from bluetoothd (unless it is paired: its keys would go too) and the link counts as down.
    /// Returns the `disconnected` error to throw, or nil for any other error.
    func forgetIfTableIsStale(_ error: any Error) async -> GATTError? {
        guard let error = error as? DBusError, error.name == BlueZ.failedError,
            error.message.hasSuffix("ATT error: 0x01")
        else { return nil }
        let paired = try? await bus.property(
            devicePath, BlueZ.deviceInterface, "Paired", timeout: .seconds(5))
        guard paired?.boolValue == false else { return nil }
        let adapterPath = String(devicePath[..<(devicePath.lastIndex(of: "/") ?? devicePath.endIndex)])
        _ = try? await bus.call(
            adapterPath, BlueZ.adapterInterface, "RemoveDevice", [.objectPath(devicePath)],
            timeout: .seconds(15))
        let reason =
            "bluetoothd's cached GATT table of the device is stale (ATT error 0x01, Invalid Handle); "
            + "removed the device from bluetoothd, so that the next connection discovers its services again"
        link.markDown(reason)
        return .disconnected(device: device, reason: reason)
    }
}
