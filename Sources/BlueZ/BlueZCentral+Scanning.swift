import DBus
import DFUSupport
import GATT
import Synchronization

/// Scanning: devices reported from bluetoothd's objects and their property changes.
extension BlueZCentral {
    /// Reports matching devices through `report` until `timeout` passes (or the task is cancelled).
    func scan(
        _ filter: ScanFilter, timeout: Duration, report: @escaping @Sendable (Advertisement) -> Void
    ) async throws {
        let signals = try await subscribe(under: adapter.path)
        let session = try await discovery.join(filter)
        // Leaving must happen even when this task was cancelled (the consumer stopped
        // iterating): a cancelled task's D-Bus calls are abandoned, and a discovery left running
        // makes later connection attempts fail. A new task is not cancelled.
        let leave = { [discovery] in await Task { await discovery.leave(session) }.value }
        do {
            try await withRealTimeLimit(timeout) {
                try await self.reportDevices(filter, signals: signals, report: report)
            }
        } catch {
            await leave()
            throw error
        }
        await leave()
    }

    private func subscribe(under path: String) async throws -> AsyncStream<BusSignal> {
        do {
            return try await bus.signals(under: path)
        } catch {
            throw gattError(error, "subscribing to bluetoothd's signals", device: adapter.name)
        }
    }

    private func reportDevices(
        _ filter: ScanFilter, signals: AsyncStream<BusSignal>, report: @Sendable (Advertisement) -> Void
    ) async throws {
        var devices: [String: DeviceProperties] = [:]
        func changed(_ path: String) {
            if let advertisement = devices[path]?.advertisement, filter.matches(advertisement) {
                report(advertisement)
            }
        }
        // Devices bluetoothd already knows produce no new signal while their data stays the
        // same (btvirt's RSSI never changes), so they are reported from the object list.
        let tree: ObjectTree
        do {
            tree = try await bus.managedObjects()
        } catch {
            throw gattError(error, "listing devices on \(adapter.name)", device: adapter.name)
        }
        for path in tree.paths(with: BlueZ.deviceInterface, under: adapter.path) {
            devices[path] = DeviceProperties(
                path: path, values: tree.properties(path, BlueZ.deviceInterface) ?? [:])
            changed(path)
        }
        for await signal in signals {
            if signal.isBlueZGone { throw GATTError.bluetoothUnavailable(BlueZBus.notRunningMessage) }
            if let added = signal.interfacesAdded, let values = added.interfaces[BlueZ.deviceInterface],
                added.path.hasPrefix(adapter.path + "/")
            {
                devices[added.path] = DeviceProperties(path: added.path, values: values)
                changed(added.path)
            } else if let removed = signal.interfacesRemoved,
                removed.interfaces.contains(BlueZ.deviceInterface)
            {
                devices[removed.path] = nil
            } else if let change = signal.propertiesChanged, change.interface == BlueZ.deviceInterface,
                devices[signal.path] != nil
            {
                devices[signal.path]?.apply(changed: change.changed, invalidated: change.invalidated)
                changed(signal.path)
            }
        }
    }
}
