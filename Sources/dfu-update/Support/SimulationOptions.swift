import ArgumentParser
import DFUSimulator
import Foundation
import GATT
import NordicDFU

/// `--simulate` and the `--sim-*` options (docs/cli-contract.md, "Simulated devices").
struct SimulationOptions: ParsableArguments {
    @Option(
        help:
            "Run against an in-process simulated device: \(SimulatedDeviceKind.names.joined(separator: ", "))."
    )
    var simulate: String?

    @Option(help: "The simulated Legacy bootloader's DFU version, 0.5 … 0.8 (0.8).")
    var simDfuVersion: String?

    @Option(help: "The Firmware Revision String the simulated application reports (1.0.0).")
    var simFirmwareVersion: String?

    @Option(help: "The hw_version the simulated Secure bootloader accepts (52).")
    var simHwVersion: String?

    @Option(help: "FWID of the SoftDevice the simulated device holds (0xB6).")
    var simSdId: String?

    @Option(help: "The simulated Secure bootloader requires init packets signed by this public key.")
    var simPublicKey: String?

    @Option(help: "ATT MTU the simulated device offers (247).")
    var simMtu: Int?

    @Option(
        help: ArgumentHelp(
            "A fault the simulated device injects (repeatable).",
            valueName: "disconnect-at=BYTES|drop-notification=N|crc-error=N|reject-connect=K|slow-flash=MS"))
    var simFault: [String] = []

    /// The address a simulated device gets when `--device` is not an address.
    static let defaultAddress = "C0:DE:00:00:00:10"

    var isSimulating: Bool { simulate != nil }

    func validate() throws {
        let usesSimOptions =
            simDfuVersion != nil || simFirmwareVersion != nil || simHwVersion != nil || simSdId != nil
            || simPublicKey != nil || simMtu != nil || !simFault.isEmpty
        if simulate == nil, usesSimOptions {
            throw ValidationError("the --sim-* options need --simulate KIND")
        }
        if let simulate, SimulatedDeviceKind(rawValue: simulate) == nil {
            throw ValidationError(
                "--simulate '\(simulate)': use one of \(SimulatedDeviceKind.names.joined(separator: ", "))")
        }
    }

    /// The simulated device's configuration; `device` is what the user named with `--device`.
    func configuration(device: DeviceIdentifier?) throws -> SimulatedDeviceConfiguration {
        guard let simulate, let kind = SimulatedDeviceKind(rawValue: simulate) else {
            throw ValidationError("--simulate is missing")
        }
        var configuration = SimulatedDeviceConfiguration(kind: kind)
        do {
            switch device {
            case .address(let address): configuration.address = BluetoothAddress(address)!
            case .name(let name): configuration.name = name
            case nil: break
            }
            if let simDfuVersion {
                configuration.legacyDFUVersion = try SimulatedDeviceConfiguration.parseLegacyDFUVersion(
                    simDfuVersion)
            }
            if let simFirmwareVersion { configuration.firmwareVersion = simFirmwareVersion }
            if let simHwVersion {
                configuration.hardwareVersion = try SimulatedDeviceConfiguration.parseInteger(simHwVersion)
            }
            if let simSdId {
                configuration.softDeviceID = try SimulatedDeviceConfiguration.parseInteger(simSdId)
            }
            if let simMtu { configuration.mtu = simMtu }
            configuration.faults = try simFault.map { spec throws(SimulatorConfigurationError) in
                try SimulatedFault(parsing: spec)
            }
            try configuration.validate()
        } catch {
            throw ValidationError(error.description)
        }
        if let simPublicKey {
            do {
                configuration.publicKey = try DFUPublicKey(contentsOf: URL(fileURLWithPath: simPublicKey))
            } catch {
                throw CommandFailure(
                    errorClass: "file_not_found", message: "--sim-public-key \(simPublicKey): \(error)",
                    exitCode: .fileNotFound)
            }
        }
        return configuration
    }
}
