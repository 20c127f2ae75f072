import DFUFleet
import DFUSimulator
import Foundation
import GATT

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
