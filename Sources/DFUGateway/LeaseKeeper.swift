import DFURollout
import DFUSupport

/// Keeps one claim's lease while its device is updated: renews it at every heartbeat, and
/// counts the lease itself from the moment each renewal was sent, so that a gateway cut off
/// from the store stops writing to the device before the store could give it to another
/// gateway (docs/rollout.md, "Claims, leases and fencing").
final class LeaseKeeper: Sendable {
    private struct State {
        var deadline: ContinuousClock.Instant
        var lost: String?
        var cancelledByOperator = false
    }

    let claim: DeviceClaim
    private let store: any RolloutStore
    private let configuration: GatewayConfiguration
    private let state: Locked<State>

    /// `claimSent`: when the claim was asked for; the lease is counted from then.
    init(
        claim: DeviceClaim, store: any RolloutStore, configuration: GatewayConfiguration,
        claimSent: ContinuousClock.Instant
    ) {
        self.claim = claim
        self.store = store
        self.configuration = configuration
        state = Locked(State(deadline: claimSent + configuration.trustedLease))
    }

    /// Until then the device is this gateway's.
    var deadline: ContinuousClock.Instant { state.withLock { $0.deadline } }
    /// Why the lease was lost, once it was.
    var lost: String? { state.withLock { $0.lost } }
    /// Whether a renewal said the operator cancelled the rollout.
    var cancelledByOperator: Bool { state.withLock { $0.cancelledByOperator } }

    /// Renews until cancelled. `stop` is called once, when the device must no longer be
    /// written to: the lease was lost, or the rollout was cancelled.
    func keep(stop: @escaping @Sendable () -> Void) async {
        let clock = ContinuousClock()
        var nextRenewal = clock.now + configuration.heartbeat
        while !Task.isCancelled {
            let deadline = self.deadline
            do {
                try await Task.sleep(until: min(nextRenewal, deadline), clock: .continuous)
            } catch {
                return
            }
            guard clock.now < deadline else {
                return lose("its lease ran out before the store could renew it", stop)
            }
            let sent = clock.now
            let claim = claim
            let lease = configuration.lease
            let store = store
            switch await Deadline.result(of: { try await store.renew(claim, lease: lease) }, before: deadline)
            {
            case nil:
                return lose("its lease ran out before the store could renew it", stop)
            case .success(let renewal):
                let cancelled = state.withLock { state in
                    state.deadline = max(state.deadline, sent + configuration.trustedLease)
                    guard renewal.rolloutState == .cancelled, !state.cancelledByOperator else { return false }
                    state.cancelledByOperator = true
                    return true
                }
                if cancelled { stop() }
                nextRenewal = sent + configuration.heartbeat
            case .failure(RolloutStoreError.leaseLost):
                return lose("another gateway holds it now", stop)
            case .failure:
                // The store is away; try again soon, within the lease.
                nextRenewal = clock.now + min(configuration.heartbeat, .seconds(1))
            }
        }
    }

    private func lose(_ reason: String, _ stop: @Sendable () -> Void) {
        state.withLock { $0.lost = $0.lost ?? reason }
        stop()
    }
}
