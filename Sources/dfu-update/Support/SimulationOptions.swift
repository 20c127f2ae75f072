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
        if let simPublicKey, !FileManager.default.isReadableFile(atPath: simPublicKey) {
            throw CommandFailure(
                errorClass: "file_not_found",
                message: "--sim-public-key \(simPublicKey): no such readable file; check the path",
                exitCode: .fileNotFound)
        }
        var address = BluetoothAddress(Self.defaultAddress)!
        var name: String?
        switch device {
        case .address(let text): address = BluetoothAddress(text)!
        case .name(let text): name = text
        case nil: break
        }
        do {
            return try SimulatedDeviceConfiguration(
                kind: simulate ?? "", address: address, name: name, dfuVersion: simDfuVersion,
                firmwareVersion: simFirmwareVersion, hardwareVersion: simHwVersion, softDeviceID: simSdId,
                publicKeyFile: simPublicKey, mtu: simMtu, faults: simFault)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
