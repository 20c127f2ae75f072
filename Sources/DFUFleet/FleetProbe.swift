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
        let (info, link) = try await open(
            address, name: name, central: central, options: options, device: device)
        await link.disconnect()
        return info
    }

    /// As `read`, but leaves the link up: the caller hands it on or disconnects it.
    static func open(
        _ address: BluetoothAddress, name: String?, central: any GATTCentral, options: DFUOptions,
        device: String
    ) async throws -> (info: FleetDeviceInfo, link: any GATTPeripheral) {
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
        return (FleetDeviceInfo(probe, name: name), peripheral)
    }
}
