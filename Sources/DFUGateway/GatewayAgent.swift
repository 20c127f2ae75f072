import DFUFleet
import DFURollout
import DFUSupport
import Foundation
import GATT

/// A gateway (docs/gateway.md): takes the devices it can reach from every active rollout in a
/// store, updates them, several at once, and reports each result; picks up new and resumed
/// rollouts as they come, and keeps going through store outages; stops when the store refuses
/// it (a password, a grant or a migration missing), which waiting does not cure.
///
/// ```swift
/// let agent = GatewayAgent(store: store, configuration: .init(name: "hall-a"), reach: reach)
/// try await agent.run { event in … }   // cancel the task to stop: devices in progress are given back
/// ```
public struct GatewayAgent: Sendable {
    let store: any RolloutStore
    let configuration: GatewayConfiguration
    let reach: GatewayReach
    let describe: @Sendable (FleetDeviceReport) -> Data?

    /// `describe`: a device's fleet report as the store keeps it (JSON), if any.
    public init(
        store: any RolloutStore, configuration: GatewayConfiguration, reach: GatewayReach,
        describe: @escaping @Sendable (FleetDeviceReport) -> Data? = { _ in nil }
    ) {
        self.store = MeasuredStore(store, factory: configuration.metrics)
        self.configuration = configuration
        self.reach = reach
        self.describe = describe
    }

    /// Runs until cancelled, or with `exitWhenIdle` until no rollout has work for this gateway.
    /// On cancellation, the updates in progress are aborted (each device can take its update
    /// again) and their devices given back. Throws `RolloutStoreError.storage` when the store
    /// refuses for a reason other than an outage (`StoreFailure.isOutage`), after the same
    /// clean stop.
    public func run(emit: @escaping @Sendable (GatewayEvent) -> Void) async throws {
        let loop = GatewayLoop(agent: self, emit: emit)
        try await loop.run()
    }
}

/// One run of the agent: its claims, the rollouts it has loaded, and its view of the store.
final class GatewayLoop: Sendable {
    let agent: GatewayAgent
    let emit: @Sendable (GatewayEvent) -> Void
    let metrics: GatewayMetrics
    let state = Locked(GatewayLoopState())
    private let wakeup = Wakeup()
    /// This run among the gateways of the same name (`RolloutStore.announce`).
    let instance = UUID().uuidString

    init(agent: GatewayAgent, emit: @escaping @Sendable (GatewayEvent) -> Void) {
        let metrics = GatewayMetrics(factory: agent.configuration.metrics)
        self.agent = agent
        self.metrics = metrics
        self.emit = { event in
            metrics.observe(event)
            emit(event)
        }
    }

    var configuration: GatewayConfiguration { agent.configuration }

    func run() async throws {
        let refusal: StoreFailure? = await withTaskGroup(of: Void.self) { group in
            defer { group.cancelAll() }
            while !Task.isCancelled {
                do {
                    try await announceWhenDue()
                    let (seen, claimed) = try await claimWork(group: &group)
                    storeAnswered()
                    if configuration.exitWhenIdle, !claimed, state.withLock({ $0.running.isEmpty }),
                        try await isIdle(try await self.rollouts(fresh: true), seen: seen)
                    {
                        emit(.idle)
                        break
                    }
                } catch RolloutStoreError.gatewayNameInUse(_, let lastSeen) {
                    emit(.nameInUse(lastSeen: lastSeen))
                    break
                } catch RolloutStoreError.storage(let failure) where !failure.isOutage {
                    return failure
                } catch {
                    storeFailed(error)
                }
                await wakeup.wait(atMost: configuration.pollInterval)
            }
            return nil
        }
        await withdraw()
        if let refusal { throw RolloutStoreError.storage(refusal) }
    }

    /// Frees the gateway's name at once; outlives the cancellation of a gateway that stops.
    private func withdraw() async {
        let (store, name, instance) = (agent.store, configuration.name, instance)
        await Task {
            try? await withRealTimeLimit(.seconds(10)) { try await store.withdraw(name, instance: instance) }
        }.value
    }

    /// Claims what the gateway has room for, rollout by rollout, and starts each update.
    /// Returns the devices seen and whether anything was claimed.
    private func claimWork(group: inout TaskGroup<Void>) async throws -> (Sighting, Bool) {
        var free = configuration.concurrency - state.withLock { $0.slotsTaken }
        // full: nothing to ask the store (the running updates renew their own leases)
        guard free > 0 else { return (Sighting(simulated: [], heardOn: [:]), false) }
        let rollouts = try await self.rollouts(fresh: false)
        let seen = await agent.reach.seen(within: configuration.scanWindow)
        metrics.sawDevices(seen.count)
        var claimed = false
        for rollout in rollouts where free > 0 {
            guard try await learnMembers(of: rollout, among: seen),
                let context = try await context(of: rollout)
            else { continue }
            try await readEntries(of: context)
            // a second batch when the first one was spent (its devices done or taken)
            for _ in 0..<2 {
                let mine = state.withLock { $0.slotsTaken(by: rollout) }
                let limit = min(free, context.concurrency - mine)
                let batch = candidates(of: rollout, among: seen, for: limit)
                guard !batch.isEmpty, limit > 0 else { break }
                let sent = ContinuousClock.now
                let claims = try await agent.store.claim(
                    rollout, for: configuration.name, among: Set(batch), limit: limit,
                    lease: configuration.lease)
                for claim in claims {
                    free -= 1
                    claimed = true
                    start(claim, sent: sent, context: context, group: &group)
                }
                guard claims.count < limit, try await settle(rollout, batch: batch, claims: claims) else {
                    break
                }
            }
        }
        return (seen, claimed)
    }

    private func start(
        _ claim: DeviceClaim, sent: ContinuousClock.Instant, context: RolloutContext,
        group: inout TaskGroup<Void>
    ) {
        let identifier = DeviceIdentifier(claim.device)
        state.withLock { $0.running[identifier] = claim.rollout }
        emit(.claimed(claim))
        let run = GatewayDeviceRun(
            claim: claim, device: identifier, claimSent: sent, context: context, reach: agent.reach,
            store: agent.store,
            configuration: configuration, describe: agent.describe, emit: emit,
            updateEnded: {
                self.state.withLock { _ = $0.reporting.insert(identifier) }
                self.wakeup.signal()
            })
        group.addTask {
            let end = await run.run()
            self.state.withLock { state in
                state.running.removeValue(forKey: identifier)
                state.reporting.remove(identifier)
                // with its result recorded, or set aside, no later batch names it (nor makes a
                // claim short)
                switch end {
                case .recorded: state.queue[claim.rollout]?.remove(claim.device)
                case .setAside:
                    state.queue[claim.rollout]?.remove(claim.device)
                    state.setAside[claim.rollout, default: []].insert(claim.device)
                case .notHeardOn(let adapter):
                    state.pinned[claim.rollout, default: [:]][claim.device] = adapter
                case .givenBack: break
                }
            }
            self.wakeup.signal()
        }
    }

    /// The rollout's context, loaded once; nil (and one event) when it cannot be used, nil
    /// while the store is away; throws when the store refuses.
    private func context(of rollout: String) async throws -> RolloutContext? {
        let (known, unusable) = state.withLock { ($0.contexts[rollout], $0.unusable.contains(rollout)) }
        if let known { return known }
        guard !unusable else { return nil }
        do {
            let context = try await RolloutContext.load(rollout, from: agent.store)
            state.withLock { $0.contexts[rollout] = context }
            return context
        } catch let error as RolloutStoreError {
            if case .storage(let failure) = error {
                guard failure.isOutage else { throw error }
                return nil  // the store is away: try again later
            }
            markUnusable(rollout, reason: "\(error)")
            return nil
        } catch {
            markUnusable(rollout, reason: "\(error)")
            return nil
        }
    }

    private func markUnusable(_ rollout: String, reason: String) {
        state.withLock { _ = $0.unusable.insert(rollout) }
        emit(.rolloutUnusable(rollout, reason: reason))
    }

    private func storeAnswered() {
        let wasAway = state.withLock { state in
            defer { state.storeAway = false }
            return state.storeAway
        }
        if wasAway { emit(.storeAvailable) }
    }

    private func storeFailed(_ error: any Error) {
        let first = state.withLock { state in
            defer { state.storeAway = true }
            return !state.storeAway
        }
        guard first else { return }
        if case .storage(let failure)? = error as? RolloutStoreError {
            emit(.storeUnavailable(failure.message))
        } else {
            emit(.storeUnavailable("\(error)"))
        }
    }
}
