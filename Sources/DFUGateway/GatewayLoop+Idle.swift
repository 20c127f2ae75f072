import DFURollout
import GATT

extension GatewayLoop {
    /// Whether no rollout has work this gateway can do: each one is halted, cancelled or
    /// completed, or every device of it that this gateway reaches has its result or was set
    /// aside by it (a device not found on the adapter its entry names is reached once that
    /// adapter hears it). A paused
    /// rollout still has work: it may be resumed. `seen`: what the claim's look just saw (a
    /// second look would scan the adapters again).
    func isIdle(_ rollouts: [String], seen: Sighting) async throws -> Bool {
        for rollout in rollouts where !state.withLock({ $0.unusable.contains(rollout) }) {
            let members = try await members(of: rollout, among: seen)
            guard !members.isEmpty else { continue }
            let summary = try await agent.store.summary(of: rollout)
            waits(for: rollout, paused: summary.state == .paused)
            guard summary.state == .active || summary.state == .paused else { continue }
            // only the devices in reach are read, not the rollout's
            let (setAside, pinned) = state.withLock {
                ($0.setAside[rollout, default: []], $0.pinned[rollout, default: [:]])
            }
            let work = members.filter { seen.contains($0.key, on: pinned[$0.value]) }.values
            let reached = try await agent.store.devices(of: rollout, named: Set(work).subtracting(setAside))
            if reached.contains(where: { $0.result == nil }) { return false }
        }
        return true
    }

    /// Says once that a paused rollout keeps the gateway from exiting, so that it does not wait
    /// silently; again if the rollout is paused once more after a resume.
    private func waits(for rollout: String, paused: Bool) {
        let first = state.withLock { state in
            guard paused else {
                state.waitingFor.remove(rollout)
                return false
            }
            return state.waitingFor.insert(rollout).inserted
        }
        if first {
            emit(
                .waiting(
                    rollout,
                    reason: "it is paused; this gateway exits once it is resumed and done, or cancelled"))
        }
    }
}
