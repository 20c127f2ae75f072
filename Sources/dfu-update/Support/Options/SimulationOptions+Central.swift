import DFUSimulator
import GATT
import NordicDFU
import SimulatorCommandLine

extension SimulationOptions {
    /// The address a simulated device gets when `--device` is not an address.
    static let simulatedDeviceAddress = "C0:DE:00:00:00:10"

    /// The in-process central hosting the one device `--simulate` and the `--sim-*` options
    /// describe, found as `target`: at its address, or by its name at `simulatedDeviceAddress`.
    func central(for target: DeviceIdentifier) throws -> SimulatedCentral {
        let device =
            switch target {
            case .address(let text): try configuration(address: BluetoothAddress(text)!)
            case .name(let name):
                try configuration(address: BluetoothAddress(Self.simulatedDeviceAddress)!, name: name)
            }
        return try SimulatedCentral(devices: [device])
    }
}
