import BlueZ
import DFUFleet
import DFUGateway
import DFUSimulator
import Foundation
import GATT
import SimulatedFleet
import SimulatorCommandLine

/// What `dfu-update gateway` reaches: the simulated devices of `--simulated-devices`, each on a
/// central of its own, and the Bluetooth adapters (those named, the first one when none is and
/// no simulated devices are given).
struct GatewaySetup {
    let reach: GatewayReach
    /// The central of each simulated device, by its inventory name.
    let simulated: [String: SimulatedCentral]

    init(_ command: GatewayCommand) async throws {
        var simulated: [String: SimulatedCentral] = [:]
        var simulatedAdapters: [(device: DeviceIdentifier, adapter: FleetAdapter)] = []
        if let path = command.simulatedDevices {
            let inventory = try FleetSetup.inventory(at: path)
            var parsed: [[String]: SimulationOptions] = [:]
            for (index, entry) in inventory.devices.enumerated() {
                guard entry.simulate != nil else {
                    throw CommandFailure(
                        usage:
                            "--simulated-devices \(path): device '\(entry.device)' has no \"simulate\" object"
                    )
                }
                let configuration = try FleetSetup.usage {
                    try SimulatedDeviceConfiguration(fleetEntry: entry, index: index, parsed: &parsed)
                }
                let (adapter, centrals) = try FleetSetup.usage {
                    try FleetAdapter.simulated([configuration], name: FleetSetup.simulatedAdapter)
                }
                simulated[entry.device] = centrals[0]
                simulatedAdapters.append((entry.identifier, adapter))
            }
        }
        var adapters: [FleetAdapter] = []
        if !command.adapters.isEmpty || command.simulatedDevices == nil {
            let names: [String?] = command.adapters.isEmpty ? [nil] : command.adapters
            for name in names {
                adapters.append(
                    FleetAdapter(
                        name: name ?? "default",
                        // a rollout's inventory, read later, may name passkey sources of its own
                        central: try await command.device.central(adapter: name, perDevice: true)))
            }
        }
        reach = GatewayReach(simulated: simulatedAdapters, adapters: adapters)
        self.simulated = simulated
    }
}
