import GATT

/// Switching an application into its bootloader and finding the device after a reboot.
extension UpdateRun {
    func enterBootloader(_ connection: DFUConnection) async throws -> DFUConnection {
        session.state(.enablingDfuMode)
        let jump = ButtonlessJump(session: session)
        let application = session.whereabouts.applicationAddress ?? BluetoothAddress(connection.address)
        var candidates: [BluetoothAddress] = []
        switch connection.mode {
        case .secureApplication(let buttonless, let kind):
            try await jump.secure(buttonless, kind: kind, peripheral: connection.peripheral)
            if let application { candidates = kind == .withBonds ? [application] : [application.incremented] }
        case .legacyApplication(let controlPoint, _):
            try await jump.legacy(controlPoint, peripheral: connection.peripheral)
            if let application { candidates = [application, application.incremented] }
        case .secureBootloader, .legacyBootloader:
            return connection
        }
        var next = try await session.reconnect(candidates: located(candidates), name: bootloaderName)
        if !next.mode.isBootloader, next.address == connection.address {
            // The central may have listed the table it kept of the application at this address
            // (bluetoothd does when it missed the change): look once more at a table read afresh.
            session.log(.info, "\(next.address) lists its application's services; discovering them again")
            await next.peripheral.disconnectDiscardingCachedServices()
            next = try await session.reconnect(candidates: located(candidates), name: bootloaderName)
        }
        guard next.mode.isBootloader else {
            await next.peripheral.disconnect()
            throw session.failure(
                .deviceNotSupported, "the device came back at \(next.address) still in application mode")
        }
        return next
    }

    /// `defaults` filtered by the user's choice of where the bootloader advertises.
    func located(_ defaults: [BluetoothAddress]) -> [BluetoothAddress] {
        guard let application = session.whereabouts.applicationAddress else { return defaults }
        switch options.bootloaderLocation {
        case .automatic: return defaults
        case .sameAddress: return [application]
        case .incrementedAddress: return [application.incremented]
        case .name: return []
        }
    }

    /// Where the device may reappear after a part: where it just was, or at either of its
    /// addresses (application mode, or a bootloader without bond information).
    func rebootCandidates(after connection: DFUConnection) -> [BluetoothAddress] {
        var candidates: [BluetoothAddress] = []
        for address in [
            BluetoothAddress(connection.address), session.whereabouts.applicationAddress?.incremented,
            session.whereabouts.applicationAddress,
        ] {
            if let address, !candidates.contains(address) { candidates.append(address) }
        }
        return located(candidates)
    }

}
