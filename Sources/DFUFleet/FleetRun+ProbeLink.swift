import FirmwareUpdate
import GATT

/// The probe's link handed to the update (`FleetOptions.handsProbeLinkToUpdate`): kept up from
/// the probe only for a device that will be updated, taken by its update's first connection,
/// and closed when nobody takes it.
extension FleetRun {
    /// Reads the device as `FleetProbe.read` does; with the option on, its link stays up, parked
    /// for `closeProbeLinkUnlessHandedOver` or `closeProbeLink`.
    func probe(_ address: BluetoothAddress, name: String?, central: any GATTCentral, device: String)
        async throws -> FleetDeviceInfo
    {
        guard options.handsProbeLinkToUpdate, !options.plan else {
            return try await FleetProbe.read(
                address, name: name, central: central, options: options.update, device: device)
        }
        let (info, link) = try await FleetProbe.open(
            address, name: name, central: central, options: options.update, device: device)
        probeLinks.withLock { $0[device] = link }
        return info
    }

    /// Keeps the device's probe link for its update when the update can take it over; closes
    /// it otherwise. A probe that subscribed to a notification (SMP's) leaves a subscription
    /// that bluetoothd gives up only once it sees the socket closed, which the update's own
    /// subscription could overtake: such a link is closed, as without the option.
    func closeProbeLinkUnlessHandedOver(of device: String, info: FleetDeviceInfo) async {
        guard info.probeSubscribed else { return }
        await closeProbeLink(of: device)
    }

    /// Disconnects the device's probe link, if one is parked (a skip, a failure, a halt).
    func closeProbeLink(of device: String) async {
        guard let link = probeLinks.withLock({ $0.removeValue(forKey: device) }) else { return }
        await link.disconnect()
    }

    /// The central that hands the device's parked probe link to its update's first connection
    /// (`central` for every other); nil when no link is parked.
    func handOverCentral(for device: String, central: any GATTCentral) -> HandOverCentral? {
        probeLinks.withLock { $0.removeValue(forKey: device) }.map { HandOverCentral(central, handing: $0) }
    }

    /// Disconnects every probe link still parked: devices that were not started.
    func closeProbeLinks() async {
        let links = probeLinks.withLock { links in
            defer { links = [:] }
            return Array(links.values)
        }
        for link in links { await link.disconnect() }
    }
}
