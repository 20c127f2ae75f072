import Foundation
import GATT

/// A short read-only connection: the Device Information Service's revisions and the DFU mode.
/// Nothing is written to the device.
enum FleetProbe {
    /// Connects to `address` through `central`, reads what the fleet needs to choose a package,
    /// and disconnects. Throws the engine's `DFUFailure` when the device cannot be reached.
    static func read(
        _ address: String, name: String?, central: any GATTCentral, options: DFUOptions, device: String
    ) async throws -> FleetDeviceInfo {
        let peripheral: any GATTPeripheral
        do {
            peripheral = try await connect(address, central: central, options: options)
        } catch let error as GATTError {
            if case .bluetoothUnavailable(let reason) = error {
                throw DFUFailure(.bluetoothDisabled, device: device, detail: reason)
            }
            throw DFUFailure(
                .failedToConnect, device: device,
                detail: "could not connect to \(address) to read its version: \(error)")
        }
        var info = FleetDeviceInfo(address: address, name: peripheral.name ?? name)
        do {
            let services = try await peripheral.services()
            let timeout = options.notificationTimeout
            if let mode = try await DeviceMode.detect(in: services, options: options, timeout: timeout) {
                info.mode = mode.isBootloader ? "bootloader" : "application"
                info.dfuProtocol = mode.format == .secure ? "secure" : "legacy"
            }
            let deviceInformation = services.first { $0.uuid == DeviceInformationUUIDs.service }
            if !info.inBootloader, let deviceInformation {
                info.firmwareRevision = try await readText(
                    options.versionCharacteristic, in: services, timeout: timeout)
                info.hardwareRevision = try await readText(
                    DeviceInformationUUIDs.hardwareRevision, in: [deviceInformation], timeout: timeout)
            }
        } catch {
            await peripheral.disconnect()
            throw DFUFailure(
                .serviceDiscoveryFailed, device: device,
                detail: "could not read \(address)'s services: \(error)")
        }
        await peripheral.disconnect()
        return info
    }

    /// Connects, trying `options.connectionAttempts` times.
    private static func connect(_ address: String, central: any GATTCentral, options: DFUOptions) async throws
        -> any GATTPeripheral
    {
        var lastError: any Error = GATTError.connectionFailed(device: address, reason: "no attempt made")
        for _ in 1...max(1, options.connectionAttempts) {
            try Task.checkCancellation()
            do {
                return try await central.connect(.address(address), timeout: options.connectTimeout)
            } catch let error as GATTError {
                if case .bluetoothUnavailable = error { throw error }
                lastError = error
            }
        }
        throw lastError
    }

    private static func readText(
        _ uuid: BluetoothUUID, in services: [GATTService], timeout: Duration
    ) async throws -> String? {
        guard let characteristic = services.lazy.compactMap({ $0.characteristic(uuid) }).first else {
            return nil
        }
        let bytes = try await characteristic.read(timeout: timeout)
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        return text.trimmingCharacters(in: .whitespaces)
    }
}
