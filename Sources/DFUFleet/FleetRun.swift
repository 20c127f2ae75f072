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
    private let reports = Locked([String: FleetDeviceReport]())
    private let haltReason = Locked<String?>(nil)
    /// The devices' results as a rollout counts them: the rollout rules decide from it when the
    /// canary lets the rest start and when the run halts, as they do for a store's rollout.
    private let tally: Locked<RolloutRules.Tally>
    /// The canary: the first `--canary` devices of the update queue, in order.
    private let canary = Locked([String]())
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
        tally = Locked(RolloutRules.Tally(devices: fleet.inventory.devices.count))
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
        let canaryItems = Array(queue.prefix(max(0, options.canary)))
        canary.withLock { $0 = canaryItems.map(\.found.entry.device) }
        let unstartedCanary = await schedule(canaryItems)
        if !Task.isCancelled, let reason = canaryHaltReason() { halt(reason) }
        notStarted(unstartedCanary, reason: haltReason.withLock { $0 } ?? "interrupted")
        let rest = Array(queue.dropFirst(canaryItems.count))
        let restMayStart = tally.withLock {
            RolloutRules.claimablePositions(canary: canaryItems.count, tally: $0) > canaryItems.count
        }
        let unstarted = restMayStart ? await schedule(rest) : rest.map(\.found.entry.device)
        notStarted(unstarted, reason: haltReason.withLock { $0 } ?? "interrupted")
    }

    /// Runs the updates under the scheduler; returns the devices never started.
    private func schedule(_ items: [Planned]) async -> [String] {
        let unstarted = await scheduler.run(items, adapter: \.found.sighting.adapter, mayStart: mayStart) {
            item in
            await self.updateDevice(item)
        }
        return unstarted.map(\.found.entry.device)
    }

    /// Whether the rollout rules let another device start. The failure limit halts at once;
    /// a failed canary stops the canary, and is reported once the canary has ended
    /// (`canaryHaltReason`); a halt (the state file's rollout cancelled among them) holds.
    private func mayStart() -> Bool {
        guard haltReason.withLock({ $0 }) == nil else { return false }
        let limit = options.maximumFailures
        let (halt, failures) = tally.withLock {
            (RolloutRules.halt(tally: $0, maxFailures: limit), $0.failures)
        }
        if halt == .tooManyFailures, let limit {
            self.halt(
                "\(Plural.count(failures, "device")) failed (--max-failures \(limit)); no more updates are started"
            )
        }
        return halt == nil
    }

    /// Why the canary, once ended, keeps the rest from starting: the first canary device, in
    /// order, that did not pass. Nil when it passed, or nothing was left to decide.
    private func canaryHaltReason() -> String? {
        // asked without the failure limit: the canary's verdict, whichever rule halted first
        guard tally.withLock({ RolloutRules.halt(tally: $0, maxFailures: nil) }) == .canaryFailed else {
            return nil
        }
        let order = canary.withLock { $0 }
        let first = reports.withLock { reports in
            order.compactMap { reports[$0] }.first {
                DeviceResult($0.result).map { !$0.passesCanary } ?? false
            }
        }
        guard let first else { return nil }
        return "canary device \(first.device) ended \(first.result.rawValue); no other device was started"
    }

    private func updateDevice(_ item: Planned) async {
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

    private func halt(_ reason: String) {
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
        if let counted = DeviceResult(result) {
            let isCanary = canary.withLock { $0.contains(report.device) }
            tally.withLock { $0.count(counted, canary: isCanary) }
        }
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
