import ArgumentParser
import BlueZ

/// `--adapter`, shared by every command that uses Bluetooth.
struct BluetoothOptions: ParsableArguments {
    @Option(help: "The Bluetooth adapter to use: hciN or its address (default: the first one).")
    var adapter: String?

    /// The BlueZ central on the chosen adapter.
    func central() async throws -> BlueZCentral {
        try await BlueZCentral(adapter: adapter)
    }
}
