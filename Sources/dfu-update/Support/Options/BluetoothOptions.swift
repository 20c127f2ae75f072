import ArgumentParser
import BlueZ

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
}
