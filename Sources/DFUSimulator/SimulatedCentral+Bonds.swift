import GATT

/// The bonds of the in-process model (`LinkSecurity`): the central's side, as bluetoothd keeps
/// them, and the device's, as its peer manager does. For tests of what a bond on one side only
/// does to an update.
extension SimulatedCentral {
    /// Whether the central holds a bond for the device named by `identifier`.
    public func holdsBond(with identifier: DeviceIdentifier) -> Bool {
        world.state.withLock { state in
            guard let device = state.devices.first(where: { $0.matches(identifier) }) else { return false }
            return state.centralBonds.contains(device.core.identityAddress)
        }
    }

    /// Forgets the central's bond for the device (`bluetoothctl remove`); the device keeps its
    /// own. Returns false when no device matches.
    @discardableResult
    public func removeBond(with identifier: DeviceIdentifier) -> Bool {
        world.state.withLock { state in
            guard let device = state.devices.first(where: { $0.matches(identifier) }) else { return false }
            state.centralBonds.remove(device.core.identityAddress)
            return true
        }
    }

    /// The device forgets its bonds (erased, as a factory reset does); the central keeps its
    /// own. Returns false when no device matches.
    @discardableResult
    public func eraseBonds(of identifier: DeviceIdentifier) -> Bool {
        world.state.withLock { state in
            guard let index = state.devices.firstIndex(where: { $0.matches(identifier) }) else {
                return false
            }
            state.devices[index].core.holdsBond = false
            return true
        }
    }
}
