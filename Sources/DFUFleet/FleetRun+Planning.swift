import DFUSupport
import FirmwareUpdate
import GATT
import NordicDFU

/// Before the updates: the state file, discovery and the read-only plan of every device.
extension FleetRun {
    /// The inventory's devices, less those the state file says are done (reported as skipped).
    func resumable() -> [FleetDeviceEntry] {
        fleet.inventory.devices.filter { entry in
            guard let done = fleet.state?.entry(for: entry.device) else { return true }
            let note = "done in an earlier run (state file)"
            emit(.planned(FleetPlanEntry(device: entry.device, found: false, note: note)))
            var report = FleetDeviceReport(device: entry.device, result: .skipped)
            report.package = done.package
            report.versionAfter = done.versionAfter
            finish(report, result: .skipped, reason: note)
            return false
        }
    }

    /// One scan per adapter; devices not seen are reported as failed. A device named by address
    /// is also looked for at address + 1, where its bootloader waits after an interrupted update
    /// (protocol doc §0.4), unless another device of the inventory has that address.
    func discover(_ entries: [FleetDeviceEntry]) async -> [Found] {
        let named = Set(
            fleet.inventory.devices.map(\.identifier)
                + options.reservedAddresses.map(DeviceIdentifier.address))
        let targets = entries.map { entry in
            let identifier = entry.identifier
            var identifiers = [identifier]
            if case .address(let address) = identifier, !named.contains(.address(address.incremented)) {
                identifiers.append(.address(address.incremented))
            }
            let adapter = fleet.inventory.adapter(of: entry).flatMap { name in
                fleet.adapters.firstIndex { $0.name == name }
            }
            return FleetDiscovery.Target(identifiers: identifiers, adapter: adapter)
        }
        let sightings = await FleetDiscovery.discover(
            targets, adapters: fleet.adapters, timeout: options.discoveryTimeout)
        foundAddresses.withLock { $0 = Set(sightings.values.map(\.advertisement.address)) }
        return entries.enumerated().compactMap { index, entry in
            if let sighting = sightings[index] { return Found(entry: entry, sighting: sighting) }
            if Task.isCancelled {
                finish(
                    FleetDeviceReport(device: entry.device, result: .notStarted), result: .notStarted,
                    reason: "interrupted")
                return nil
            }
            let seconds = Int(options.discoveryTimeout.seconds)
            let note = "not found within \(seconds) s of scanning"
            emit(.planned(FleetPlanEntry(device: entry.device, found: false, note: note)))
            var report = FleetDeviceReport(device: entry.device, result: .failed)
            report.failure = DFUFailure(
                .failedToConnect, device: entry.device,
                detail: "\(note); check its address or name"
            )
            finish(report, result: .failed)
            return nil
        }
    }

    /// Reads the device, chooses its package and compares versions; reports it as failed when
    /// it cannot be read or no package applies.
    func plan(_ found: Found) async -> Planned? {
        let device = found.entry.device
        let central = fleet.adapters[found.sighting.adapter].centrals[found.sighting.central]
        let advertisement = found.sighting.advertisement
        let address = advertisement.address
        // the probe may pair already (an SMP device's bootloader information)
        let seen = FleetDeviceInfo(address: address, name: advertisement.name)
        await preparePairing(
            device, address: address, central: central, security: self.security(for: found.entry, info: seen))
        let info: FleetDeviceInfo
        do {
            info = try await probe(address, name: advertisement.name, central: central, device: device)
        } catch {
            var report = FleetDeviceReport(device: device, result: .failed)
            report.failure = error as? DFUFailure
            emit(.planned(FleetPlanEntry(device: device, found: true, note: "could not be read")))
            await finishPairing(device, central: central)
            finish(report, result: Task.isCancelled ? .aborted : .failed)
            return nil
        }
        let needs = self.security(for: found.entry, info: info)
        await preparePairing(device, address: address, central: central, security: needs)
        let choice = fleet.inventory.packageChoice(for: found.entry, info: info)
        let failure =
            unpairable(device, security: needs)
            ?? (choice.flatMap { fleet.packages[$0.package] } == nil
                ? DFUFailure(
                    .fileNotSpecified, device: device,
                    detail: "no package for it: it has none, no rule matches and there is no default package")
                : nil)
        guard let choice, let package = fleet.packages[choice.package], failure == nil else {
            var entry = FleetPlanEntry(
                device: device, found: true, info: info,
                note: failure?.error == .securityRequired ? "no passkey source" : "no package applies")
            entry.security = needs
            entry.imageLayout = info.imageLayout?.summary
            emit(.planned(entry))
            await closeProbeLink(of: device)
            await finishPairing(device, central: central)
            var report = FleetDeviceReport(device: device, result: .failed)
            report.info = info
            report.versionBefore = info.firmwareRevision
            report.failure = failure
            finish(report, result: .failed)
            return nil
        }
        let packaged =
            options.update.packageVersion.flatMap(DFUFirmwareVersion.init)
            ?? package.contents.installedVersion
        let check = DFUVersionCheck(
            installed: info.firmwareRevision, package: packaged,
            force: found.entry.force ?? fleet.inventory.defaults.force)
        var entry = FleetPlanEntry(
            device: device, found: true, info: info, choice: choice, packageVersion: check.package,
            decision: check.decision)
        entry.security = needs
        entry.imageLayout = info.imageLayout?.summary(
            updatingNetworkCore: package.contents.updatesNetworkCore)
        emit(.planned(entry))
        // no further connection: the link closes, and the bond, if the probe made one, goes now
        if options.plan || check.decision == .skip {
            await closeProbeLink(of: device)
            await finishPairing(device, central: central)
        } else {
            await closeProbeLinkUnlessHandedOver(of: device, info: info)
        }
        return Planned(found: found, info: info, choice: choice, check: check)
    }
}
