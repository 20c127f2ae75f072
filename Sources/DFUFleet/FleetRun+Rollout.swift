import DFURollout
import DFUSupport

/// The run's updates as a rollout (`FleetRunRollout`): which device may start, and why the run
/// halts.
extension FleetRun {
    /// The run's rollout of the update queue; nil (and the run halted) when the failures before
    /// any update reached `--max-failures`, or the rollout could not be made.
    func updateRollout(of queue: [Planned]) async -> FleetRunRollout? {
        let earlierFailures = reports.withLock { reports in
            reports.values.count(where: { DeviceResult($0.result)?.isFailure == true })
        }
        do {
            let rollout = try await FleetRunRollout(
                queue: queue.map(\.found.entry.device), canary: options.canary,
                maxFailures: options.maximumFailures, earlierFailures: earlierFailures)
            if rollout == nil { haltForFailures(earlierFailures) }
            return rollout
        } catch {
            halt("the run's rollout could not be made (\(error)); no update is started")
            return nil
        }
    }

    /// Whether the rollout lets the item's device start (and takes it). The failure limit halts
    /// at once; a failed canary stops the canary, and is reported once the canary has ended
    /// (`update`); a halt (the state file's rollout cancelled among them) holds.
    func mayStart(_ item: Planned, in rollout: FleetRunRollout) async -> Bool {
        guard haltReason.withLock({ $0 }) == nil else { return false }
        do {
            if try await rollout.start(item.found.entry.device) { return true }
            if try await rollout.halt() == .tooManyFailures { haltForFailures(try await rollout.failures()) }
        } catch {
            rolloutFailed(error)
        }
        return false
    }

    /// The run's rollout could not answer (its store in memory failed): no update starts after.
    func rolloutFailed(_ error: any Error) {
        halt("the run's rollout failed (\(error)); no more updates are started")
    }

    func haltForFailures(_ failures: Int) {
        guard let limit = options.maximumFailures else { return }
        halt(
            "\(Plural.count(failures, "device")) failed (--max-failures \(limit)); no more updates are started"
        )
    }

    /// Why the canary, once ended with a failure, keeps the rest from starting: the first
    /// canary device, in order, that did not pass.
    func canaryHaltReason(_ canary: [Planned]) -> String? {
        let first = reports.withLock { reports in
            canary.compactMap { reports[$0.found.entry.device] }.first {
                DeviceResult($0.result).map { !$0.passesCanary } ?? false
            }
        }
        guard let first else { return nil }
        return "canary device \(first.device) ended \(first.result.rawValue); no other device was started"
    }
}
