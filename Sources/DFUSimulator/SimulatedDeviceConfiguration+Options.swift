import Foundation
import GATT
import NordicDFU

extension SimulatedDeviceConfiguration {
    /// Builds a configuration from the CLI contract's option values: the `--sim-*` options of
    /// `dfu-update flash --simulate`, or the `simulate` object of a fleet inventory. A nil value
    /// keeps the default; every error names the option and what it accepts.
    public init(
        kind: String, address: BluetoothAddress, name: String? = nil, dfuVersion: String? = nil,
        firmwareVersion: String? = nil, hardwareVersion: String? = nil, softDeviceID: String? = nil,
        publicKeyFile: String? = nil, mtu: Int? = nil, faults: [String] = []
    ) throws(SimulatorConfigurationError) {
        guard let kind = SimulatedDeviceKind(rawValue: kind) else {
            throw SimulatorConfigurationError(
                "--simulate '\(kind)' is not a simulated device kind; use one of \(SimulatedDeviceKind.names.joined(separator: ", "))"
            )
        }
        self.init(kind: kind, address: address)
        if let name { self.name = name }
        if let dfuVersion { legacyDFUVersion = try Self.parseLegacyDFUVersion(dfuVersion) }
        if let firmwareVersion { self.firmwareVersion = firmwareVersion }
        if let hardwareVersion {
            do {
                self.hardwareVersion = try Self.parseInteger(hardwareVersion)
            } catch {
                throw SimulatorConfigurationError("--sim-hw-version: \(error.message)")
            }
        }
        if let softDeviceID {
            do {
                self.softDeviceID = try Self.parseInteger(softDeviceID)
            } catch {
                throw SimulatorConfigurationError(
                    "--sim-sd-id: \(error.message) (a 16-bit FWID such as 0xB6)")
            }
        }
        if let publicKeyFile {
            do {
                publicKey = try DFUPublicKey(contentsOf: URL(fileURLWithPath: publicKeyFile))
            } catch {
                throw SimulatorConfigurationError("--sim-public-key \(publicKeyFile): \(error.description)")
            }
        }
        if let mtu { self.mtu = mtu }
        self.faults = try faults.map { spec throws(SimulatorConfigurationError) in
            try SimulatedFault(parsing: spec)
        }
        try validate()
    }
}
