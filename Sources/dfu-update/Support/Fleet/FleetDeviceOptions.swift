import ArgumentParser
import BlueZ
import DFUFleet

/// How each device of a fleet is updated, as `fleet` and `gateway` take it: retries of whole
/// updates, the bounds on one device, the read-back, the engine's options, and pairing (the
/// defaults for devices the inventory says nothing about; bonds are looked after per device).
struct FleetDeviceOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help:
            "Whole updates started again per device after one failed to connect or lost its link beyond --retries, 0…100 (default: 2).",
        transform: { try Ranged.integer($0, in: 0...100) })
    var deviceRetries = 2

    @Option(
        parsing: .unconditional,
        help:
            "Seconds one device's update may take, device retries included, 0.01…3600 (default: 600).",
        transform: Seconds.parse)
    var deviceTimeout = Seconds(600)

    @Option(
        parsing: .unconditional,
        help: "Seconds to scan for a device before its update, 0.01…3600 (default: 10).",
        transform: Seconds.parse)
    var discoveryTimeout = Seconds(10)

    @Flag(help: "Do not reconnect after an update to read the version the device now reports.")
    var noReadBack = false

    @OptionGroup(title: "Update options (each device)") var update: UpdateOptions

    @OptionGroup(title: "Pairing (docs/pairing.md; the inventory's security keys take precedence)")
    var pairing: PairingOptions

    /// The fleet options these ask for (concurrency, canary and the rest at their defaults).
    var fleetOptions: FleetOptions {
        var options = FleetOptions()
        options.retries = deviceRetries
        options.deviceTimeout = deviceTimeout.duration
        options.discoveryTimeout = discoveryTimeout.duration
        options.readBack = !noReadBack
        options.update = update.dfuOptions
        options.security = DeviceSecurity(passkey: pairing.passkeySource)
        options.keepsBonds = pairing.keepBond
        options.removesBondsFirst = pairing.rePair
        options.acceptsNumericComparison = pairing.acceptNumericComparison
        return options
    }

    /// The central's pairing settings; `perDevice`: some devices have passkey sources of their own.
    func pairingSettings(perDevice: Bool) -> PairingSettings {
        var settings = pairing.settings
        settings.passkeysPerDevice = perDevice
        return settings
    }

    /// A BlueZ central on `adapter` (nil: the first) that pairs as these options say.
    func central(adapter: String?, perDevice: Bool) async throws -> BlueZCentral {
        var options = BlueZCentral.Options()
        options.pairing = pairingSettings(perDevice: perDevice)
        return try await BlueZCentral(adapter: adapter, options: options)
    }
}
