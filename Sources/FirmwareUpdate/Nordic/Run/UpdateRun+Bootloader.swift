import GATT

/// Switching an application into its bootloader and finding the device after a reboot.
extension UpdateRun {
    func enterBootloader(_ connection: DFUConnection) async throws -> DFUConnection {
        session.state(.enablingDfuMode)
        let jump = ButtonlessJump(session: session, runState: runState)
        let application = runState.whereabouts.applicationAddress ?? connection.address
        var candidates: [BluetoothAddress] = []
        switch connection.mode {
        case .secureApplication(let buttonless, let kind):
            try await jump.secure(buttonless, kind: kind, peripheral: connection.peripheral)
            candidates = kind == .withBonds ? [application] : [application.incremented]
        case .legacyApplication(let controlPoint, _):
            try await jump.legacy(controlPoint, peripheral: connection.peripheral)
            candidates = [application, application.incremented]
        case .secureBootloader, .legacyBootloader:
            return connection
        }
        var next = try await session.reconnect(candidates: located(candidates), name: bootloaderName)
        if !next.mode.isBootloader, next.address == connection.address,
            let changed = try await serviceChanged(next)
        {
            next = changed
        } else if !next.mode.isBootloader, next.address == connection.address {
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

    /// A bootloader entered with bonds, listed with the table the central kept of its bonded
    /// application: once the link is encrypted with the bond, the bootloader indicates Service
    /// Changed (`nrf_dfu_ble.c`, on `BLE_GAP_EVT_CONN_SEC_UPDATE`) and the central discovers its
    /// table again. Waits for that table; nil when the central reports no change (its bond is
    /// gone, or it reads tables afresh), and the kept table is then discarded instead.
    private func serviceChanged(_ connection: DFUConnection) async throws -> DFUConnection? {
        guard case .secureApplication(_, .withBonds) = connection.mode else { return nil }
        session.log(
            .info, "\(connection.address) lists its application's services; waiting for Service Changed")
        let uuids = options.nordic.uuids
        let services: [GATTService]?
        do {
            services = try await connection.peripheral.servicesAfterChange(timeout: Self.serviceChangedWait) {
                $0.contains { $0.uuid == uuids.secureService && $0.characteristic(uuids.securePacket) != nil }
            }
        } catch {
            await connection.peripheral.disconnect()
            throw session.mapped(error, during: .serviceDiscoveryFailed)
        }
        guard let services,
            let mode = try await DeviceMode.detect(
                in: services, uuids: options.nordic.uuids,
                forceBootloaderMode: options.nordic.forceBootloaderMode,
                experimentalButtonless: options.nordic.enableExperimentalButtonless,
                timeout: options.notificationTimeout)
        else { return nil }
        session.log(.info, "\(connection.address) changed its services: \(mode.summary)")
        return DFUConnection(peripheral: connection.peripheral, services: services, mode: mode)
    }

    /// How long a bonded bootloader's Service Changed and the discovery after it may take:
    /// Nordic's Android library waits up to 4 s for the indication alone.
    static let serviceChangedWait: Duration = .seconds(10)

    /// `defaults` filtered by the user's choice of where the bootloader advertises.
    func located(_ defaults: [BluetoothAddress]) -> [BluetoothAddress] {
        guard let application = runState.whereabouts.applicationAddress else { return defaults }
        switch options.nordic.bootloaderLocation {
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
            connection.address, runState.whereabouts.applicationAddress?.incremented,
            runState.whereabouts.applicationAddress,
        ] {
            if let address, !candidates.contains(address) { candidates.append(address) }
        }
        return located(candidates)
    }

}
