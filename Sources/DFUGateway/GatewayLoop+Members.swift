import DFURollout
import GATT

extension GatewayLoop {
    /// The rollout's devices among `seen`, by the name the store knows each by. The store is
    /// asked only about identifiers not asked about before, by key: the cost follows what the
    /// gateway sees, not the rollout's size.
    func members(of rollout: String, among seen: Set<DeviceIdentifier>) async throws
        -> [DeviceIdentifier: String]
    {
        let unasked = state.withLock { seen.subtracting($0.asked[rollout, default: []]) }
        if !unasked.isEmpty {
            let found = try await agent.store.devices(of: rollout, named: Self.names(of: unasked))
            state.withLock { state in
                state.asked[rollout, default: []].formUnion(unasked)
                for device in found {
                    state.members[rollout, default: [:]][DeviceIdentifier(device.device)] = device.device
                }
                state.queue[rollout, default: []] += found.filter { $0.result == nil }.map(\.device)
                state.unread[rollout, default: []] += found.map(\.device)
            }
        }
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
