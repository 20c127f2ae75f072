import DFUSupport
import GATT
import MCUmgr
import NordicDFU

/// A connected device, its services and what it offers for DFU.
struct DFUConnection {
    let peripheral: any GATTPeripheral
    let services: [GATTService]
    let mode: DeviceMode

    var address: BluetoothAddress { peripheral.address }
}

extension UpdateSession {
    /// Connects (several attempts, each bounded by the connect timeout), resolves services and
    /// detects the DFU mode.
    func connect(_ target: DeviceIdentifier) async throws -> DFUConnection {
        try await connect(target, inspecting: inspect)
    }

    /// Connects (several attempts, each bounded by the connect timeout) and hands the link to
    /// `inspect`, which resolves what the update needs of it; a transport error there counts as
    /// a failed attempt.
    func connect<Link>(
        _ target: DeviceIdentifier, inspecting inspect: (any GATTPeripheral) async throws -> Link
    ) async throws -> Link {
        let attempts = max(1, options.connectionAttempts)
        let lastError: GATTError
        do {
            return try await central.connect(
                target, attempts: attempts, timeout: options.connectTimeout,
                beforeEach: { try await controller.checkpoint() },
                failed: { attempt, error in
                    log(.info, "connection attempt \(attempt) to \(target) failed: \(error)")
                },
                open: inspect)
        } catch let error as GATTError {
            switch error {
            case .bluetoothUnavailable: throw mapped(error, during: .bluetoothDisabled)
            // pairing is never tried twice: a device may lock out after failed attempts
            case .securityFailed: throw mapped(error, during: .failedToConnect)
            default: lastError = error
            }
        }
        // the failure's message starts with the device, and the transport's names it too: say it once
        var reason = lastError.description
        if case .connectionFailed(_, let why) = lastError { reason = why }
        let tries = attempts == 1 ? "" : " (\(attempts) attempts)"
        throw failure(.failedToConnect, "could not connect\(tries): \(reason)")
    }

    private func inspect(_ peripheral: any GATTPeripheral) async throws -> DFUConnection {
        do {
            let services = try await peripheral.services()
            guard
                let mode = try await DeviceMode.detect(
                    in: services, uuids: options.nordic.uuids,
                    forceBootloaderMode: options.nordic.forceBootloaderMode,
                    experimentalButtonless: options.nordic.enableExperimentalButtonless,
                    timeout: options.notificationTimeout)
            else {
                await peripheral.disconnect()
                guard services.contains(where: { $0.uuid == SMPUUIDs.service }) else {
                    throw failure(.deviceNotSupported, "it offers neither Secure nor Legacy DFU")
                }
                throw failure(
                    .deviceNotSupported,
                    "it offers SMP (MCUmgr), not Nordic DFU, and the file is a Nordic DFU package",
                    advice: "give it an MCUboot image (.bin or .hex) or a dfu_application.zip")
            }
            log(.info, "connected to \(peripheral.address): \(mode.summary)")
            return DFUConnection(peripheral: peripheral, services: services, mode: mode)
        } catch is LegacyVersionUnreadable {
            await peripheral.disconnect()
            throw failure(.readingVersionFailed, "the Legacy DFU Version characteristic is not 2 bytes long")
        } catch let error as GATTError {
            await peripheral.disconnect()
            if case .disconnected = error { throw error }
            if case .securityFailed = error { throw mapped(error, during: .serviceDiscoveryFailed) }
            throw failure(.serviceDiscoveryFailed, "\(error)")
        }
    }

    /// Finds the device again after it rebooted (into its bootloader, or between parts) and
    /// connects. `candidates` are the addresses it may advertise at, in order of preference;
    /// other devices' addresses (`DFUOptions.otherDevices`) are left out. After a reset that
    /// activated an image of `activatedBytes`, the bootloader copies it into place before the
    /// device advertises again: the scan timeout starts once that copy may have ended.
    func reconnect(candidates: [BluetoothAddress], name: String?, activatedBytes: Int = 0) async throws
        -> DFUConnection
    {
        try await reconnect(
            candidates: candidates, name: name,
            within: options.bootloaderScanTimeout + NRF52Flash.copyTime(bytes: activatedBytes),
            inspecting: inspect)
    }

    /// Finds the device again at one of `candidates` or by `name` within `timeout`, and connects
    /// as `connect(_:inspecting:)` does.
    func reconnect<Link>(
        candidates: [BluetoothAddress], name: String?, within timeout: Duration,
        inspecting inspect: (any GATTPeripheral) async throws -> Link
    ) async throws -> Link {
        var distinct: [BluetoothAddress] = []
        for address in candidates where !distinct.contains(address) && !options.otherDevices.contains(address)
        {
            distinct.append(address)
        }
        let candidates = distinct
        let deadline = ContinuousClock.now + timeout
        var lastError: (any Error)?
        while ContinuousClock.now < deadline {
            try await controller.checkpoint()
            let remaining = deadline - ContinuousClock.now
            guard
                let address = try await BootloaderLocator.find(
                    in: central, candidates: candidates, name: name, timeout: remaining)
            else { break }
            do {
                return try await connect(.address(address), inspecting: inspect)
            } catch let failure as DFUFailure where failure.error == .failedToConnect {
                lastError = failure
            }
        }
        let places = candidates.map(\.description) + (name.map { ["name \($0)"] } ?? [])
        throw failure(
            .failedToConnect,
            "the device did not come back at \(places.joined(separator: " or ")) within "
                + timeout.secondsForPeople + (lastError.map { " (\($0))" } ?? ""))
    }
}

/// Scans for a rebooted device by address or advertised name.
enum BootloaderLocator {
    /// The address of the first advertisement from one of `candidates` or named `name`; `nil`
    /// when none appeared within `timeout`.
    static func find(
        in central: any GATTCentral, candidates: [BluetoothAddress], name: String?, timeout: Duration
    ) async throws -> BluetoothAddress? {
        let wanted = Set(candidates)
        do {
            for try await advertisement in central.scan(ScanFilter(), timeout: timeout) {
                if wanted.contains(advertisement.address) { return advertisement.address }
                if let name, advertisement.name == name { return advertisement.address }
            }
        } catch let error as GATTError {
            if case .timeout = error { return nil }
            throw error
        }
        return nil
    }
}
