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
            }
        }
        return state.withLock { $0.members[rollout, default: [:]].filter { seen.contains($0.key) } }
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
