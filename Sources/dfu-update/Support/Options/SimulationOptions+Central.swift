import DFUSimulator
import GATT
import NordicDFU
import SimulatorCommandLine

extension SimulationOptions {
    /// The in-process central hosting the one device `--simulate` and the `--sim-*` options
    /// describe, found as `target`: at its address, or by its name at `BluetoothAddress.simulatedDevice`.
    func central(for target: DeviceIdentifier) throws -> SimulatedCentral {
        let device =
            switch target {
            case .address(let address): try configuration(address: address)
            case .name(let name): try configuration(address: .simulatedDevice, name: name)
            }
        return try SimulatedCentral(devices: [device])
    }
}
