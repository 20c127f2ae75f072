import DFURollout
import GATT

extension GatewayLoop {
    /// Asks the store which of the identifiers seen and not asked about before are the
    /// rollout's devices, by key, and queues those without a result. The simulated devices are
    /// asked about once (every look sees them all); of the rest, only what was heard is compared
    /// with what was asked: the cost follows what changed, not the rollout's size nor the
    /// devices in reach. Returns whether the gateway knows any device of the rollout.
    func learnMembers(of rollout: String, among seen: Sighting) async throws -> Bool {
        let unasked = state.withLock { state in
            let asked = state.asked[rollout, default: []]
            let heard = seen.heard.filter { !asked.contains($0) }
            guard !state.askedSimulated.contains(rollout) else { return heard }
            return heard.union(seen.simulated.lazy.filter { !asked.contains($0) })
        }
        if !unasked.isEmpty {
            let found = try await agent.store.devices(of: rollout, named: Self.names(of: unasked))
            state.withLock { state in
                state.asked[rollout, default: []].formUnion(unasked)
                for device in found {
                    state.members[rollout, default: [:]][DeviceIdentifier(device.device)] = device.device
                }
                state.queue[rollout, default: ClaimQueue()].append(
                    found.lazy.filter { $0.result == nil }.map(\.device))
                state.unread[rollout, default: []] += found.map(\.device)
            }
        }
        return state.withLock { state in
            state.askedSimulated.insert(rollout)
            return !state.members[rollout, default: [:]].isEmpty
        }
    }

    /// The rollout's devices among `seen`, by the name the store knows each by: a walk over
    /// every device of it the gateway knows, for the idle check only.
    func members(of rollout: String, among seen: Sighting) async throws -> [DeviceIdentifier: String] {
        _ = try await learnMembers(of: rollout, among: seen)
        return state.withLock { $0.members[rollout, default: [:]].filter { seen.contains($0.key) } }
    }

    /// Reads the entries of the rollout's devices found since the last read, when its store
    /// keeps them per device: one call for all of them, none per claimed device.
    func readEntries(of context: RolloutContext) async throws {
        guard case .stored(let stored) = context.entries else { return }
        let unread = state.withLock { state in
            defer { state.unread[context.rollout] = nil }
            return state.unread[context.rollout] ?? []
        }
        // not read (the store away): each device's entry is read when it is claimed instead
        if !unread.isEmpty { try await stored.read(unread, from: agent.store) }
    }

    /// The names an inventory may give the identified devices: an address as BlueZ prints it
    /// or in lower case (an identifier reads either; the store keeps the inventory's text).
    private static func names(of identifiers: Set<DeviceIdentifier>) -> Set<String> {
        Set(
            identifiers.flatMap { identifier in
                switch identifier {
                case .address(let address): [address.description, address.description.lowercased()]
                case .name(let name): [name]
                }
            })
    }
}
