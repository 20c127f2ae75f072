import DFURollout
import GATT

/// A claim names a small batch of the gateway's devices, not every device it sees: the store's
/// work for a claim then follows the batch, not the gateway's reach nor the rollout (issue 39).
/// The store still decides which of them may be taken (state, canary, leases), so the rules
/// stay exact across gateways.
extension GatewayLoop {
    /// Devices named per device a claim asks for, and the fewest a batch names: room to skip
    /// those another gateway holds or finished without asking the store again.
    static let candidatesPerDevice = 8
    static let smallestBatch = 32

    /// The first devices of the rollout's queue that are seen and not being updated here,
    /// enough for a claim of `limit`.
    func candidates(of rollout: String, among seen: Sighting, for limit: Int) -> [String] {
        let size = max(Self.smallestBatch, limit * Self.candidatesPerDevice)
        return state.withLock { state in
            let running = state.running
            let pinned = state.pinned[rollout, default: [:]]
            return state.queue[rollout, default: ClaimQueue()].first(size) { device in
                let identifier = DeviceIdentifier(device)
                return running[identifier] == nil && seen.contains(identifier, on: pinned[device])
            }
        }
    }

    /// After a claim that took fewer devices than it asked for: reads the batch's devices (by
    /// key), drops those with a result from the queue and moves the others it did not take to
    /// its end, so that the next batch names other devices; every device comes round again, so
    /// one held by a gateway that died is taken over once its lease ends. Returns whether the
    /// queue holds devices the batch did not name.
    func settle(_ rollout: String, batch: [String], claims: [DeviceClaim]) async throws -> Bool {
        let read = try await agent.store.devices(of: rollout, named: Set(batch))
        let done = Set(read.filter { $0.result != nil }.map(\.device))
        let taken = Set(claims.map(\.device))
        return state.withLock { state in
            Self.settle(&state.queue[rollout, default: ClaimQueue()], batch: batch, done: done, taken: taken)
        }
    }

    /// `settle`'s work on the rollout's queue, changed in place.
    private static func settle(
        _ queue: inout ClaimQueue, batch: [String], done: Set<String>, taken: Set<String>
    ) -> Bool {
        for device in done { queue.remove(device) }
        queue.moveToEnd(batch.filter { !done.contains($0) && !taken.contains($0) })
        return queue.count > batch.count { queue.contains($0) }
    }
}
