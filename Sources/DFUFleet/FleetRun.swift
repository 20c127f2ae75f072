import DFURollout
import DFUSupport
import FirmwareUpdate
import GATT
import Logging
import NordicDFU

/// One run of a fleet: state file, discovery, plan, canary, updates (docs/fleet.md).
final class FleetRun: Sendable {
    let fleet: Fleet
    let emit: @Sendable (FleetEvent) -> Void
    let reports = Locked([String: FleetDeviceReport]())
    let haltReason = Locked<String?>(nil)
    /// The inventory's devices by name, in order (a new state file's rollout).
    private let inventoryDevices: [String]
    /// Where discovery saw the fleet's devices: never taken for another device's bootloader.
    let foundAddresses = Locked(Set<BluetoothAddress>())
    /// The bond of each device met so far, by device (`FleetRun+Pairing`).
    let bonds = Locked([String: RunBond]())
    /// The links of probed devices kept up for their updates, by device (`FleetRun+ProbeLink`).
    let probeLinks = Locked([String: any GATTPeripheral]())

    init(fleet: Fleet, emit: @escaping @Sendable (FleetEvent) -> Void) {
        self.fleet = fleet
        self.emit = emit
        inventoryDevices = fleet.inventory.devices.map(\.device)
    }

    /// A device found by discovery, and where.
    struct Found: Sendable {
        var entry: FleetDeviceEntry
        var sighting: FleetDiscovery.Sighting
    }

    /// A device with its package chosen and its version compared.
    struct Planned: Sendable {
        var found: Found
        var info: FleetDeviceInfo
        var choice: FleetPackageChoice
        var check: DFUVersionCheck
    }

    var options: FleetOptions { fleet.options }

    private var scheduler: FleetScheduler {
        FleetScheduler(concurrency: options.concurrency, capacities: fleet.adapters.map(\.maximumConnections))
    }

    func run() async -> FleetReport {
        let clock = ContinuousClock()
        let started = clock.now
        let found = await discover(resumable())
        let plans = Locked([String: Planned]())
        let unprobed = await scheduler.run(found, adapter: \.sighting.adapter) { found in
            if let planned = await self.plan(found) { plans.withLock { $0[found.entry.device] = planned } }
        }
        notStarted(unprobed.map(\.entry.device), reason: "interrupted")
        let planned = plans.withLock { plans in found.compactMap { plans[$0.entry.device] } }
        if options.plan {
            for item in planned { finish(base(item), result: .notStarted, reason: "plan") }
        } else {
            await update(planned)
        }
        await closeProbeLinks()
        await fleet.state?.written()
        let devices = reports.withLock { reports in
            fleet.inventory.devices.map {
                reports[$0.device] ?? FleetDeviceReport(device: $0.device, result: .notStarted)
            }
        }
        return FleetReport(devices: devices, duration: clock.now - started)
    }

    // MARK: Updates

    private func update(_ planned: [Planned]) async {
        var queue: [Planned] = []
        for item in planned {
            if item.check.decision == .skip {
                emit(.device(item.found.entry.device, .version(item.check)))
                var report = base(item)
                report.versionAfter = item.info.firmwareRevision
                finish(report, result: .skipped, reason: "up to date")
            } else {
                queue.append(item)
            }
        }
        guard let rollout = await updateRollout(of: queue) else {
            notStarted(queue.map(\.found.entry.device), reason: haltReason.withLock { $0 } ?? "interrupted")
            return
        }
        let canaryItems = Array(queue.prefix(max(0, options.canary)))
        let unstartedCanary = await schedule(canaryItems, in: rollout)
        if !Task.isCancelled, (try? await rollout.halt(withLimit: false)) == .canaryFailed,
            let reason = canaryHaltReason(canaryItems)
        {
            halt(reason)
        }
        notStarted(unstartedCanary, reason: haltReason.withLock { $0 } ?? "interrupted")
        // the rollout lets none of the rest start unless every canary device passed
        let unstarted = await schedule(Array(queue.dropFirst(canaryItems.count)), in: rollout)
        notStarted(unstarted, reason: haltReason.withLock { $0 } ?? "interrupted")
    }

    /// Runs the updates under the scheduler, each one once the rollout lets it start; returns
    /// the devices never started.
    private func schedule(_ items: [Planned], in rollout: FleetRunRollout) async -> [String] {
        let unstarted = await scheduler.run(
            items, adapter: \.found.sighting.adapter, mayStart: { await self.mayStart($0, in: rollout) },
            { await self.updateDevice($0, in: rollout) })
        return unstarted.map(\.found.entry.device)
    }

    private func updateDevice(_ item: Planned, in rollout: FleetRunRollout) async {
        let sighting = item.found.sighting
        let adapter = fleet.adapters[sighting.adapter]
        let central = adapter.centrals[sighting.central]
        var report = base(item)
        let started = central.linkTime.now()
        let others = Self.otherDevices(
            near: sighting.advertisement.address, found: foundAddresses.withLock { $0 },
            reserved: options.reservedAddresses)
        let handOver = handOverCentral(for: item.found.entry.device, central: central)
        let update = FleetDeviceUpdate(
            device: item.found.entry.device, address: sighting.advertisement.address,
            central: handOver ?? central,
            package: fleet.packages[item.choice.package]!,
            force: item.found.entry.force ?? fleet.inventory.defaults.force,
            info: item.info, options: options,
            otherAddresses: others,
            emit: emit)
        await update.run(into: &report)
        await handOver?.close()
        await finishPairing(item.found.entry.device, central: central)
        report.duration = central.linkTime.now() - started
        finish(report, result: report.result, reason: report.reason)
        do {
            try await rollout.end(item.found.entry.device, DeviceResult(report.result))
        } catch {
            rolloutFailed(error)
        }
        // the slot is freed once the state file has the result: a cancel it found halts first
        await fleet.state?.settled()
    }

    /// The other devices' addresses near `address`, of those discovery `found` and those the
    /// options `reserved`. The engine and the read-back look for a device only at its address and
    /// those next to it (a bootloader at address + 1, protocol doc §0.4, from wherever the device
    /// was last), so the few around it are enough: a set of every device, made for each, made
    /// the updates of a fleet cost as the square of its devices.
    static func otherDevices(
        near address: BluetoothAddress, found: Set<BluetoothAddress>, reserved: Set<BluetoothAddress>
    ) -> Set<BluetoothAddress> {
        var near: [BluetoothAddress] = []
        var (up, down) = (address, address)
        for _ in 0..<4 {
            (up, down) = (up.incremented, down.decremented)
            near += [up, down]
        }
        return Set(near.filter { found.contains($0) || reserved.contains($0) })
    }

    // MARK: Reports

    private func base(_ item: Planned) -> FleetDeviceReport {
        var report = FleetDeviceReport(device: item.found.entry.device, result: .notStarted)
        report.info = item.info
        report.package = item.choice.package
        report.versionBefore = item.info.firmwareRevision
        return report
    }

    func halt(_ reason: String) {
        let first = haltReason.withLock { current in
            defer { current = current ?? reason }
            return current == nil
        }
        if first { emit(.halted(reason)) }
    }

    private func notStarted(_ devices: [String], reason: String?) {
        for device in devices {
            finish(
                FleetDeviceReport(device: device, result: .notStarted), result: .notStarted, reason: reason)
        }
    }

    func finish(_ report: FleetDeviceReport, result: FleetDeviceReport.Result, reason: String? = nil) {
        var report = report
        report.result = result
        report.reason = reason ?? report.reason
        reports.withLock { $0[report.device] = report }
        if !options.plan, let state = fleet.state {
            let device = report.device
            state.record(report, devices: inventoryDevices, halt: halt) { [emit] problem in
                Logger.fleetDevice(device).error("\(problem)")
                emit(.device(device, .log(.error, problem)))
            }
        }
        emit(.finished(report))
    }
}
