import ArgumentParser
import BlueZ
import CommandLineContract
import GATT
import SimulatorCommandLine

/// How `flash` pairs with a device that asks for security, and what it does with the bond
/// afterwards (docs/pairing.md). A passkey is never an argument: only where to find it is.
struct PairingOptions: OptionChecks {
    @Flag(
        help:
            "Pair with the device right after connecting, before the update (default: only when it refuses for security)."
    )
    var pair = false

    @Flag(
        name: .customLong("re-pair"),
        help:
            "Remove the bond this host holds for the device first, then pair again (a device that lost its keys)."
    )
    var rePair = false

    @Flag(
        help:
            "Keep a bond this run made (default: remove it afterwards; a bond held before the run is always kept)."
    )
    var keepBond = false

    @Option(
        help: ArgumentHelp(
            "Read the passkey from this file, which only its owner may read (chmod 600).", valueName: "file"))
    var passkeyFile: String?

    @Option(help: ArgumentHelp("Read the passkey from this environment variable.", valueName: "name"))
    var passkeyEnv: String?

    @Option(
        help: ArgumentHelp(
            "Run this program, with the device's address as its argument, when a passkey is needed; it prints the passkey.",
            valueName: "program"))
    var passkeyCommand: String?

    @Flag(help: "Accept numeric comparison (both sides show a number) without anyone comparing the numbers.")
    var acceptNumericComparison = false

    func checkOptions() throws {
        let sources = [passkeyFile, passkeyEnv, passkeyCommand].compactMap { $0 }
        if sources.count > 1 {
            throw ValidationError("--passkey-file, --passkey-env and --passkey-command exclude each other")
        }
        if sources.contains(where: \.isEmpty) { throw ValidationError("a passkey source may not be empty") }
    }

    /// Where the passkey comes from, if it was given.
    var passkeySource: PasskeySource? {
        if let passkeyFile { return .file(passkeyFile) }
        if let passkeyEnv { return .environment(passkeyEnv) }
        return passkeyCommand.map(PasskeySource.command)
    }

    /// What the central's pairing agent does.
    var settings: PairingSettings {
        PairingSettings(
            passkey: passkeySource, acceptsNumericComparison: acceptNumericComparison,
            pairsFirst: pair || rePair)
    }
}
