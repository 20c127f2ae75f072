import ArgumentParser
import BlueZ
import CommandLineContract
import GATT
import SimulatorCommandLine

extension LocalSecurity: ExpressibleByArgument {}

/// What the simulated device asks of a central's link (`--sim-security`) and the passkey it
/// pairs with: never on the command line, from a file only its owner reads or the environment
/// (docs/pairing.md).
struct SimPairingOptions: OptionChecks {
    @Option(
        help: ArgumentHelp(
            "What the device's update characteristics ask of the link: open, encrypt (any pairing, Just Works included) or authenticated (a passkey).",
            valueName: "level"))
    var simSecurity: LocalSecurity = .open

    @Option(
        help: ArgumentHelp(
            "With --sim-security authenticated: the device's fixed passkey, from a file only its owner may read.",
            valueName: "file"))
    var simPasskeyFile: String?

    @Option(
        help: ArgumentHelp(
            "With --sim-security authenticated: the device's fixed passkey, from this environment variable.",
            valueName: "name"))
    var simPasskeyEnv: String?

    func checkOptions() throws {
        if simPasskeyFile != nil && simPasskeyEnv != nil {
            throw ValidationError("--sim-passkey-file and --sim-passkey-env exclude each other")
        }
        let hasPasskey = simPasskeyFile != nil || simPasskeyEnv != nil
        if simSecurity == .authenticated && !hasPasskey {
            throw ValidationError(
                "--sim-security authenticated needs --sim-passkey-file or --sim-passkey-env")
        }
        if simSecurity != .authenticated && hasPasskey {
            throw ValidationError("a passkey is for --sim-security authenticated")
        }
    }

    /// The device's agent, registered with bluetoothd; nil for an open device. A fixed passkey
    /// is modelled by a KeyboardOnly agent that enters it: with both sides KeyboardOnly, SMP has
    /// each side enter the passkey (Bluetooth Core 5.4, Vol 3, Part H, 2.3.5.1), and the two
    /// agents answer the same number.
    func agent(adapter: String?) async throws -> PeripheralPairingAgent? {
        guard simSecurity != .open else { return nil }
        let passkey: PasskeySource? =
            simPasskeyFile.map(PasskeySource.file) ?? simPasskeyEnv.map(PasskeySource.environment)
        return try await PeripheralPairingAgent.register(
            settings: PairingSettings(passkey: passkey), adapter: adapter)
    }
}
