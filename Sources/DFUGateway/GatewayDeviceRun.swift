import DFUFleet
import DFURollout
import DFUSupport
import Foundation
import GATT
import NordicDFU

/// One claimed device: its update as a fleet run of that one device, under its lease, then its
/// result reported to the store, or the device given back.
struct GatewayDeviceRun: Sendable {
    let claim: DeviceClaim
    /// The claimed device, read once from the store's name for it.
    let device: DeviceIdentifier
    let claimSent: ContinuousClock.Instant
    let context: RolloutContext
    let reach: GatewayReach
    let store: any RolloutStore
    let configuration: GatewayConfiguration
    /// The device's fleet report as the store keeps it (the CLI's JSON of it).
    let describe: @Sendable (FleetDeviceReport) -> Data?
    let emit: @Sendable (GatewayEvent) -> Void
    /// Called when the update ended with a result whose report cannot narrow what the store
    /// lets be claimed (completed or skipped: neither halts the rollout), before that report:
    /// the gateway claims the next device while it is under way, not after (issue 39). A
    /// failure's report may halt the rollout, so its slot is freed only once it is recorded.
    let updateEnded: @Sendable () -> Void

    /// How the device's run ended for the gateway.
    enum End: Equatable {
        /// The store recorded its result.
        case recorded
        /// Given back, or its lease lost: it may be claimed again, here or by another gateway.
        case givenBack
        /// Given back for a reason of this gateway's own (it cannot update the device, or did
        /// not start it): claiming it again would end the same way at once, so this run of the
        /// gateway leaves it to the others.
        case setAside
        /// Not found on the adapter its inventory entry names (heard on another one): given
        /// back, and claimed here again once that adapter hears it.
        case notHeardOn(String)
    }

    /// Updates the device, then reports its result or gives it back.
    func run() async -> End {
        let (fleet, pinned): (Fleet, String?)
        do {
            (fleet, pinned) = try await makeFleet()
        } catch RolloutStoreError.storage(let failure) where failure.isOutage {
            return await release("its inventory entry could not be read: \(failure.message)")
        } catch let error as RolloutStoreError {
            return await release("its inventory entry could not be read: \(error)", setAside: true)
        } catch {
            return await release("this gateway cannot update it: \(error)", setAside: true)
        }
        let keeper = LeaseKeeper(
            claim: claim, store: store, configuration: configuration, claimSent: claimSent)
        let notFound = Locked(false)
        let (controller, outputs) = fleet.start { event in
            if case .planned(let entry) = event, !entry.found { notFound.withLock { $0 = true } }
            emit(.fleet(claim, event))
        }
        let keeping = Task { await keeper.keep(stop: controller.cancel) }
        defer { keeping.cancel() }
        let cancel: @Sendable () -> Void = { controller.cancel() }
        let report = await waitUncancelled(onCancel: cancel) {
            var report: FleetReport?
            for await output in outputs {
                if case .ended(let ended) = output { report = ended }
            }
            return report?.devices.first
        }
        if let lost = keeper.lost {
            emit(.leaseLost(claim, reason: lost))
            return .givenBack
        }
        if notFound.withLock({ $0 }) {
            guard let pinned else { return await release("not found") }
            _ = await release(
                "not found on \(pinned), the adapter its inventory entry names; "
                    + "this gateway takes it again once \(pinned) hears it")
            return .notHeardOn(pinned)
        }
        guard let report, report.result != .notStarted else {
            return await release(
                "not started" + (report?.reason.map { ": \($0)" } ?? ""), setAside: !Task.isCancelled)
        }
        if report.result == .aborted, !keeper.cancelledByOperator {
            return await release(
                "the gateway stopped: the update was interrupted after \(Plural.count(report.bytesSent, "byte"))"
            )
        }
        if DeviceResult(report.result)?.passesCanary == true { updateEnded() }
        return await self.report(report, keeper: keeper) ? .recorded : .givenBack
    }

    /// A fleet of this one device, with the rollout's rules, on the adapters that reach it, and
    /// the adapter its inventory entry names, if any (none for a simulated device, on an adapter
    /// of its own). The rollout's canary and failure limit are the store's, so the fleet has
    /// neither.
    private func makeFleet() async throws -> (Fleet, pinned: String?) {
        guard let listed = try await context.inventory(for: claim, device: device, store: store) else {
            throw FleetInventoryError("the rollout's inventory does not list it")
        }
        var inventory = listed.inventory
        let adapters = reach.adapters(for: device)
        let simulated = reach.isSimulated(device)
        if simulated { inventory.devices[0].adapter = adapters.first?.name }
        let pinned = simulated ? nil : inventory.adapter(of: inventory.devices[0])
        var options = configuration.fleet
        options.concurrency = 1
        options.canary = 0
        options.maximumFailures = nil
        options.plan = false
        // the update follows the probe at once: one connection instead of two
        options.handsProbeLinkToUpdate = true
        options.reservedAddresses = listed.neighbours
        let packages = context.packages.filter { inventory.packagePaths.contains($0.key) }
        let fleet = try Fleet(inventory: inventory, packages: packages, adapters: adapters, options: options)
        return (fleet, pinned)
    }

    /// Reports the result, trying again while the store is away, as long as the lease is this
    /// gateway's (the keeper, still running, goes on renewing it meanwhile). Returns whether
    /// the store recorded it.
    private func report(_ report: FleetDeviceReport, keeper: LeaseKeeper) async -> Bool {
        // a device not started is given back, never reported: the fallback is never taken
        let result = DeviceResult(report.result) ?? .aborted
        let outcome = DeviceOutcome(
            // a skip's reason (up to date) is no failure: it stays in the report, under `reason`
            result: result, error: report.failure?.message ?? (result == .failed ? report.reason : nil),
            report: describe(report))
        let claim = claim
        let store = store
        while keeper.lost == nil {
            switch await keeper.beforeDeadline({ try await store.report(claim, outcome) }) {
            case .success?:
                emit(.reported(claim, result))
                return true
            case .failure(RolloutStoreError.leaseLost)?:
                emit(.leaseLost(claim, reason: "another gateway holds it now; its result was not recorded"))
                return false
            case .failure?, nil:
                // The store is away: try again while the keeper still holds the lease.
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        emit(
            .leaseLost(
                claim,
                reason:
                    "\(keeper.lost ?? "its lease ran out"); its result (\(result.rawValue)) was not recorded")
        )
        return false
    }

    /// Gives the device back so that another gateway may take it at once; outlives the
    /// cancellation of a gateway that is stopping. `setAside`: this gateway does not take it
    /// again (the event says so).
    private func release(_ reason: String, setAside: Bool = false) async -> End {
        let reason = setAside ? "\(reason); this gateway does not take it again until it restarts" : reason
        let claim = claim
        let store = store
        struct NoAnswer: Error {}
        let released = await Task {
            (try? await withRealTimeout(.seconds(10), orThrow: { NoAnswer() }) {
                try await store.release(claim)
            })
                != nil
        }.value
        if released {
            emit(.released(claim, reason: reason))
        } else {
            emit(
                .leaseLost(claim, reason: "\(reason); it could not be given back, so its lease will run out"))
        }
        return setAside ? .setAside : .givenBack
    }
}
