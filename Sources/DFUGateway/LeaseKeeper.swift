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
            switch await beforeDeadline({ try await store.renew(claim, lease: lease) }) {
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

    /// The result of a store call, or nil when the lease's count runs out first: a call stuck on
    /// a dead connection must not keep the gateway past that moment (the call is abandoned).
    func beforeDeadline<T: Sendable>(_ call: @escaping @Sendable () async throws -> T) async -> Result<
        T, any Error
    >? {
        let limit = deadline - ContinuousClock.now
        guard limit > .zero else { return nil }
        do {
            return .success(try await withRealTimeout(limit, orThrow: { PastDeadline() }, call))
        } catch is PastDeadline {
            return nil
        } catch {
            return .failure(error)
        }
    }

    private func lose(_ reason: String, _ stop: @Sendable () -> Void) {
        state.withLock { $0.lost = $0.lost ?? reason }
        stop()
    }
}

/// A store call that the lease's count ran out before.
private struct PastDeadline: Error {}
