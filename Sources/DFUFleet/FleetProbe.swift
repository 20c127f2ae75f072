import FirmwareUpdate
import Foundation
import GATT
import NordicDFU

/// A short read-only connection to a device: the engine's `DeviceProbe`, with the fleet's
/// connection attempts. Nothing is written to the device.
enum FleetProbe {
    /// Connects to `address` through `central`, reads what the fleet needs to choose a package,
    /// and disconnects. Throws the engine's `DFUFailure` when the device cannot be reached.
    static func read(
        _ address: BluetoothAddress, name: String?, central: any GATTCentral, options: DFUOptions,
        device: String
    ) async throws -> FleetDeviceInfo {
        // the message names the device; its address only when the user named it otherwise
        let at = DeviceIdentifier(device) == .address(address) ? "" : " at \(address)"
        let peripheral: any GATTPeripheral
        do {
            peripheral = try await central.connect(
                .address(address), attempts: options.connectionAttempts, timeout: options.connectTimeout
            ) { $0 }
        } catch let error as GATTError {
            switch error {
            case .bluetoothUnavailable(let reason):
                throw DFUFailure(.bluetoothDisabled, device: device, detail: reason)
            case .connectionFailed(_, let reason):
                throw DFUFailure(
                    .failedToConnect, device: device,
                    detail: "could not connect\(at) to read its version: \(reason)")
            default:
                throw DFUFailure(
                    .failedToConnect, device: device,
                    detail: "could not connect\(at) to read its version: \(error)")
            }
        }
        let probe: DeviceProbe
        do {
            probe = try await DeviceProbe.read(
                peripheral, options: options, timeout: options.notificationTimeout)
        } catch {
            await peripheral.disconnect()
            throw DFUFailure(
                .serviceDiscoveryFailed, device: device,
                detail: "could not read its services\(at): \(error)")
        }
        await peripheral.disconnect()
        return FleetDeviceInfo(probe, name: name)
    }
}
