import Foundation
import GATT
import NordicDFU

extension FleetAdapter {
    /// An adapter of simulated devices, each on a `SimulatedCentral` of its own, so that each has
    /// its own link and virtual clock (one central's devices share one clock; docs/simulator.md).
    /// `maximumConnections` defaults to one per device: a simulated adapter holds them all.
    public static func simulated(
        _ devices: [SimulatedDeviceConfiguration], name: String = "simulated", maximumConnections: Int? = nil
    ) throws(SimulatorConfigurationError) -> (adapter: FleetAdapter, centrals: [SimulatedCentral]) {
        let centrals = try devices.map { device throws(SimulatorConfigurationError) in
            try SimulatedCentral(devices: [device])
        }
        let adapter = FleetAdapter(
            name: name, centrals: centrals, maximumConnections: maximumConnections ?? max(1, devices.count))
        return (adapter, centrals)
    }
}

extension SimulatedDeviceConfiguration {
    /// The simulated device of an inventory entry with a `simulate` object. An entry named by
    /// address advertises there; one named by name advertises that name at an address made from
    /// `index` (`C0:DE:00:01:HH:LL`, the low octet even so that address + 1 stays in the block).
    public init(fleetEntry entry: FleetDeviceEntry, index: Int) throws(SimulatorConfigurationError) {
        guard let spec = entry.simulate else {
            throw SimulatorConfigurationError("device '\(entry.device)' has no simulate object")
        }
        let identifier = DeviceIdentifier(entry.device)
        let fallback = String(format: "C0:DE:00:01:%02X:%02X", (index >> 7) & 0xFF, (index << 1) & 0xFF)
        var address = BluetoothAddress(fallback)!
        var name: String?
        switch identifier {
        case .address(let text): address = BluetoothAddress(text)!
        case .name(let text): name = text
        }
        do {
            try self.init(
                kind: spec.kind, address: address, name: name, dfuVersion: spec.dfuVersion,
                firmwareVersion: spec.firmwareVersion, hardwareVersion: spec.hwVersion,
                softDeviceID: spec.sdId,
                publicKeyFile: spec.publicKey, mtu: spec.mtu, faults: spec.faults)
        } catch {
            throw SimulatorConfigurationError("device '\(entry.device)': \(error.message)")
        }
    }
}
