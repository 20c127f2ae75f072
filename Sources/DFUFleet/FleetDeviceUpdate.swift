import DFUSupport
import FirmwareUpdate
import GATT
import Logging
import NordicDFU

/// One device's update within a fleet: attempts with backoff, a bound on the whole, and a
/// read-back of the version it runs afterwards.
struct FleetDeviceUpdate: Sendable {
    let device: String
    let address: BluetoothAddress
    let central: any GATTCentral
    let package: FirmwarePackage
    let force: Bool
    let info: FleetDeviceInfo
    let options: FleetOptions
    /// Addresses of the fleet's other devices: never taken for this one's bootloader.
    let otherAddresses: Set<BluetoothAddress>
    let emit: @Sendable (FleetEvent) -> Void

    /// Where the fleet's own lines about this device go, beside the engine's.
    private var logger: Logger { .fleetDevice(device) }

    /// Runs the update and fills `report`'s result, counters and version after.
    func run(into report: inout FleetDeviceReport) async {
        let timedOut = Locked(false)
        let attempts = await withTaskGroup(of: Attempts?.self) { group in
            group.addTask { await self.attempts() }
            group.addTask {
                try? await Task.sleep(for: self.options.deviceTimeout)
                if !Task.isCancelled { timedOut.withLock { $0 = true } }
                return nil
            }
            var finished: Attempts?
            while let next = await group.next() {
                if let next {
                    finished = next
                    group.cancelAll()
                } else if timedOut.withLock({ $0 }) {
                    group.cancelAll()
                }
            }
            return finished ?? Attempts()
        }
        report.bytesSent += attempts.bytesSent
        report.retries += attempts.retries
        report.transferDuration = attempts.transferDuration
        switch attempts.last?.outcome {
        case .completed:
            report.result = .completed
            if options.readBack { report.versionAfter = await versionAfter() }
        case .skipped:
            report.result = .skipped
            report.reason = "up to date"
            report.versionAfter = report.versionBefore
        case .failed(let failure):
            report.result = .failed
            report.failure = failure
        case .aborted, nil:
            if timedOut.withLock({ $0 }) {
                report.result = .failed
                report.failure = DFUFailure(
                    .invalidInternalState, device: device,
                    detail:
                        "the update did not finish within \(Int(options.deviceTimeout.seconds)) s and was "
                        + "aborted; the device can take it again (raise the device timeout for slow links)")
            } else {
                report.result = .aborted
            }
        }
    }

    private struct Attempts: Sendable {
        var last: DFUResult?
        var bytesSent = 0
        var retries = 0
        var transferDuration: Duration = .zero
    }

    /// Whole-update attempts until one ends other than with a retryable failure. A retry sends
    /// only the parts the device did not take yet (`DFUResult.partsActivated`), and none once it
    /// took the last one: a device is never updated twice with one package.
    private func attempts() async -> Attempts {
        var attempts = Attempts()
        var updateOptions = options.update
        updateOptions.force = force
        updateOptions.otherDevices = otherAddresses
        var target = address
        var partsActivated = 0
        for attempt in 0...max(0, options.retries) {
            if attempt > 0 {
                attempts.retries += 1
                let wait = options.backoff * (1 << min(attempt - 1, 16))
                let line = "retrying in \(wait.secondsForPeople) (retry \(attempt) of \(options.retries))"
                logger.info("\(line)")
                emit(.device(device, .log(.info, line)))
                do {
                    try await central.linkTime.sleep(for: wait)
                } catch {
                    break
                }
                target = await relocated()
            }
            let result = await updateOnce(
                package.contents.remainder(afterParts: partsActivated), at: target, options: updateOptions)
            attempts.last = result
            attempts.bytesSent += result.bytesSent
            attempts.retries += result.retries
            attempts.transferDuration = result.transferDurations.reduce(.zero, +)
            partsActivated += result.partsActivated
            guard let failure = result.failure, failure.isRetryable || failure.error == .failedToConnect,
                partsActivated < package.contents.partCount, !Task.isCancelled
            else { break }
        }
        return attempts
    }

    private func updateOnce(_ package: FirmwarePackage, at target: BluetoothAddress, options: DFUOptions)
        async
        -> DFUResult
    {
        let updater = package.contents.updater(central: central, device: .address(target), options: options)
        let controller = DFUController()
        let (_, events) = updater.start(controller: controller, observer: { _ in })
        let device = device
        let emit = emit
        let abort: @Sendable () -> Void = { controller.abort() }
        return await waitUncancelled(onCancel: abort) {
            var result: DFUResult?
            for await event in events {
                if case .result(let final) = event { result = final }
                emit(.device(device, event))
            }
            return result ?? DFUResult(outcome: .aborted, bytesSent: 0, duration: .zero, retries: 0)
        }
    }

    /// Where the device advertises now: after a failed attempt an application may wait in its
    /// bootloader at address + 1 (protocol doc §0.4).
    private func relocated() async -> BluetoothAddress {
        var candidates = [address]
        if !otherAddresses.contains(address.incremented) { candidates.append(address.incremented) }
        return await locate(candidates, within: options.update.bootloaderScanTimeout) ?? address
    }

    /// The version the device reports after the update: its application comes up at its own
    /// address, or one below where its bootloader was when the fleet found it in the bootloader.
    private func versionAfter() async -> String? {
        var candidates = [address]
        if info.inBootloader, !otherAddresses.contains(address.decremented) {
            candidates.insert(address.decremented, at: 0)
        }
        let window = options.update.bootloaderScanTimeout + package.contents.settlingTime
        guard let found = await locate(candidates, within: window) else { return nil }
        let probe = try? await FleetProbe.read(
            found, name: info.name, central: central, options: options.update, device: device)
        return probe?.firmwareRevision
    }

    /// The first of `candidates` seen advertising within `timeout`.
    private func locate(_ candidates: [BluetoothAddress], within timeout: Duration) async -> BluetoothAddress?
    {
        do {
            for try await advertisement in central.scan(ScanFilter(), timeout: timeout)
            where candidates.contains(advertisement.address) {
                return advertisement.address
            }
        } catch {
            return nil
        }
        return nil
    }
}
