import ArgumentParser
import BlueZ
import SimulatorCommandLine

/// `--adapter`, shared by every command that uses Bluetooth.
struct BluetoothOptions: ParsableArguments {
    @Option(help: "The Bluetooth adapter to use: hciN or its address (default: the first one).")
    var adapter: String?

    /// The BlueZ central on the chosen adapter; with `pairing`, it pairs through its own agent.
    func central(pairing: PairingSettings? = nil) async throws -> BlueZCentral {
        var options = BlueZCentral.Options()
        options.pairing = pairing
        return try await BlueZCentral(adapter: adapter, options: options)
    }

    /// Refuses `--adapter` beside `--simulate`: the simulated device lives in this process, on
    /// no adapter, so the adapter named would be silently left unused.
    func refuseAdapter(besides simulation: SimulationOptions) throws {
        guard let adapter, simulation.simulate != nil else { return }
        throw ValidationError(
            "--adapter \(adapter) goes unused with --simulate: the simulated device is in this process, on no adapter; give one or the other"
        )
    }
}
