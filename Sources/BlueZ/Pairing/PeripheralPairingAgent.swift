/// The pairing agent of a host that serves GATT (`dfu-sim`): it answers every central that pairs
/// with the host, with the passkey of `settings` (the same safe sources as a central's). Kept
/// registered, as bluetoothd's default agent, while the value lives.
public final class PeripheralPairingAgent: Sendable {
    private let agent: PairingAgent
    private let bus: BlueZBus
    private let adapter: Adapter
    /// The devices bluetoothd held bonds for on the adapter when the agent registered.
    private let bondedBefore: Set<String>

    private init(agent: PairingAgent, bus: BlueZBus, adapter: Adapter, bondedBefore: Set<String>) {
        self.agent = agent
        self.bus = bus
        self.adapter = adapter
        self.bondedBefore = bondedBefore
    }

    /// Registers the agent on a system-bus connection of its own, for the host's `adapter`
    /// (`hciN`, its address, or the first one).
    public static func register(settings: PairingSettings, adapter name: String?) async throws
        -> PeripheralPairingAgent
    {
        let bus = try await BlueZBus.connect()
        let adapter: Adapter
        let bonded: Set<String>
        do {
            let tree = try await bus.managedObjects()
            adapter = try Adapter.select(name, in: tree)
            bonded = bondedDevices(on: adapter, in: tree)
        } catch {
            throw gattError(error, "listing adapters", device: name ?? "adapter")
        }
        return PeripheralPairingAgent(
            agent: try await PairingAgent.register(on: bus, settings: settings, answersAnyDevice: true),
            bus: bus, adapter: adapter, bondedBefore: bonded)
    }

    /// Removes the bonds made on the adapter since the agent registered: a simulated device's
    /// keys live as long as its process, as a real device's live in its flash. A central that
    /// kept its side holds a bond the device no longer knows (docs/pairing.md).
    public func forgetNewBonds() async {
        guard let tree = try? await bus.managedObjects() else { return }
        for path in Self.bondedDevices(on: adapter, in: tree).subtracting(bondedBefore) {
            _ = try? await bus.call(
                adapter.path, BlueZ.adapterInterface, "RemoveDevice", [.objectPath(path)],
                timeout: .seconds(15))
        }
    }

    private static func bondedDevices(on adapter: Adapter, in tree: ObjectTree) -> Set<String> {
        Set(
            tree.paths(with: BlueZ.deviceInterface, under: adapter.path).filter {
                tree.properties($0, BlueZ.deviceInterface)?["Paired"]?.boolValue == true
            })
    }
}
