import ArgumentParser
import DFUSimulator
import Foundation
import GATT
import NordicDFU

/// `--simulate KIND` and the `--sim-*` options of the CLI contract ("Simulated devices"), shared
/// by `dfu-update flash --simulate` and `dfu-sim`.
public struct SimulationOptions: ParsableArguments {
    @Option(help: "Simulate a device of this kind (docs/cli-contract.md, \"Simulated devices\").")
    public var simulate: SimulatedDeviceKind?

    @Option(help: "The simulated Legacy bootloader's DFU version, 0.5 … 0.8 (0.8).")
    public var simDfuVersion: LegacyDFUVersion?

    @Option(help: "The Firmware Revision String the simulated application reports (1.0.0).")
    public var simFirmwareVersion: String?

    @Option(help: "The hw_version the simulated Secure bootloader accepts, decimal or 0x hex (52).")
    public var simHwVersion: NumberArgument<UInt32>?

    @Option(
        help:
            "FWID of the SoftDevice the simulated device holds, decimal or 0x hex (0xB6; Legacy kinds 0x88).")
    public var simSdId: NumberArgument<UInt16>?

    @Option(
        help: ArgumentHelp(
            "The simulated Secure bootloader requires init packets signed by this public key (PEM or nrfutil hex).",
            valueName: "file"))
    public var simPublicKey: String?

    @Option(help: "ATT MTU the simulated device offers, 23 … 517 (247).")
    public var simMtu: Int?

    @Option(help: "The largest image, in KiB, the simulated device's free bank takes (900).")
    public var simBankKib: Int?

    @Option(
        help: ArgumentHelp(
            "A fault the simulated device injects (repeatable).", valueName: SimulatedFault.forms))
    public var simFault: [SimulatedFault] = []

    public init() {}

    /// Whether any `--sim-*` option was given.
    public var usesSimulatorOptions: Bool {
        simDfuVersion != nil || simFirmwareVersion != nil || simHwVersion != nil || simSdId != nil
            || simPublicKey != nil || simMtu != nil || simBankKib != nil || !simFault.isEmpty
    }

    public func validate() throws {
        if simulate == nil, usesSimulatorOptions {
            throw ValidationError("the --sim-* options need --simulate KIND")
        }
    }

    /// The device these options describe, advertising at `address` (with `name`, when given).
    /// Throws `SimulationOptionsError`: the key file is missing or unusable, or a value is out of
    /// range.
    public func configuration(address: BluetoothAddress, name: String? = nil) throws(SimulationOptionsError)
        -> SimulatedDeviceConfiguration
    {
        guard let simulate else { throw SimulationOptionsError("--simulate KIND is required") }
        var configuration = SimulatedDeviceConfiguration(kind: simulate, address: address)
        if let name { configuration.name = name }
        if let simDfuVersion { configuration.legacyDFUVersion = simDfuVersion }
        configuration.firmwareVersion = simFirmwareVersion
        if let simHwVersion { configuration.hardwareVersion = simHwVersion.value }
        if let simSdId { configuration.softDeviceID = simSdId.value }
        if let simPublicKey {
            guard FileManager.default.isReadableFile(atPath: simPublicKey) else {
                throw SimulationOptionsError(
                    "--sim-public-key \(simPublicKey): no such readable file; check the path",
                    isMissingFile: true)
            }
            do {
                configuration.publicKey = try DFUPublicKey(contentsOf: URL(fileURLWithPath: simPublicKey))
            } catch {
                throw SimulationOptionsError("--sim-public-key \(simPublicKey): \(error.description)")
            }
        }
        if let simMtu { configuration.mtu = simMtu }
        if let simBankKib {
            guard simBankKib > 0 else {
                throw SimulationOptionsError("--sim-bank-kib \(simBankKib) must be at least 1")
            }
            configuration.bankCapacity = simBankKib * 1024
        }
        configuration.faults = simFault
        do {
            try configuration.validate()
        } catch {
            throw SimulationOptionsError(error.description)
        }
        return configuration
    }
}

/// Simulation options that cannot be used; the message names the option and what it accepts.
public struct SimulationOptionsError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// The `--sim-public-key` file does not exist or cannot be read (the contract's
    /// `file_not_found`); otherwise the error is a usage error.
    public var isMissingFile: Bool

    public init(_ description: String, isMissingFile: Bool = false) {
        self.description = description
        self.isMissingFile = isMissingFile
    }
}
