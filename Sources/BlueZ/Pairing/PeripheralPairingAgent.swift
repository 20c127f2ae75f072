/// The pairing agent of a host that serves GATT (`dfu-sim`): it answers every central that pairs
/// with the host, with the passkey of `settings` (the same safe sources as a central's). Kept
/// registered, as bluetoothd's default agent, while the value lives.
public final class PeripheralPairingAgent: Sendable {
    private let agent: PairingAgent

    private init(agent: PairingAgent) { self.agent = agent }

    /// Registers the agent on a system-bus connection of its own.
    public static func register(settings: PairingSettings) async throws -> PeripheralPairingAgent {
        let bus = try await BlueZBus.connect()
        return PeripheralPairingAgent(
            agent: try await PairingAgent.register(on: bus, settings: settings, answersAnyDevice: true))
    }
}
