import GATT

/// A connected device's services as bluetoothd lists them under its object, and the object
/// paths of their characteristics.
struct ServiceTable: Sendable {
    var services: [GATTService] = []
    var characteristicPaths: [String] = []
}

extension BlueZPeripheral {
    /// The table of the device at `devicePath` in `tree`, its characteristics bound to `context`.
    static func table(in tree: ObjectTree, under devicePath: String, context: CharacteristicContext)
        -> ServiceTable
    {
        var table = ServiceTable()
        for servicePath in tree.paths(with: BlueZ.serviceInterface, under: devicePath) {
            guard
                let uuid = tree.properties(servicePath, BlueZ.serviceInterface)?["UUID"]?.stringValue
                    .flatMap(BluetoothUUID.init)
            else { continue }
            var characteristics: [any GATTCharacteristic] = []
            for characteristicPath in tree.paths(with: BlueZ.characteristicInterface, under: servicePath) {
                let values = tree.properties(characteristicPath, BlueZ.characteristicInterface) ?? [:]
                guard values["Service"]?.stringValue == servicePath,
                    let characteristicUUID = values["UUID"]?.stringValue.flatMap(BluetoothUUID.init)
                else { continue }
                characteristics.append(
                    BlueZCharacteristic(
                        context: context, path: characteristicPath, uuid: characteristicUUID,
                        serviceUUID: uuid,
                        properties: CharacteristicProperties(
                            flagNames: values["Flags"]?.stringArrayValue ?? [])))
                table.characteristicPaths.append(characteristicPath)
            }
            table.services.append(GATTService(uuid: uuid, characteristics: characteristics))
        }
        return table
    }

    /// Waits for bluetoothd to list other services for the device on this link: after a Service
    /// Changed indication, bluetoothd (`src/gatt-client.c`, `src/device.c`) discovers the
    /// changed range again and replaces the device's service objects, with `ServicesResolved`
    /// true once done. The peripheral lists the new table from then on; nil after `timeout`, and
    /// at once for a device that is not paired (no bond, no encryption, no Service Changed: its
    /// stale table is dropped instead, `disconnectDiscardingCachedServices`).
    public func servicesAfterChange(
        timeout: Duration, until isWanted: @escaping @Sendable ([GATTService]) -> Bool
    ) async throws -> [GATTService]? {
        guard (try? await bus.isPaired(path, device: address.description)) == true else { return nil }
        guard let changed = try await Self.changedTable(context: context, timeout: timeout, until: isWanted)
        else { return nil }
        table.withLock { $0 = changed }
        return changed.services
    }

    /// Reads the device's objects every 250 ms until `ServicesResolved` is true and `isWanted`
    /// accepts the table they hold; nil after `timeout`. Throws `disconnected` once the link is
    /// down.
    static func changedTable(
        context: CharacteristicContext, timeout: Duration,
        until isWanted: @escaping @Sendable ([GATTService]) -> Bool
    ) async throws -> ServiceTable? {
        let deadline = ContinuousClock.now + timeout
        let (device, path) = (context.device, context.devicePath)
        while ContinuousClock.now < deadline {
            if let reason = context.link.downReason {
                throw GATTError.disconnected(device: device, reason: reason)
            }
            let tree: ObjectTree
            do {
                tree = try await context.bus.managedObjects()
            } catch {
                throw gattError(error, "listing the services of \(device)", device: device)
            }
            if tree.properties(path, BlueZ.deviceInterface)?["ServicesResolved"]?.boolValue == true {
                let changed = table(in: tree, under: path, context: context)
                if isWanted(changed.services) { return changed }
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        return nil
    }
}
