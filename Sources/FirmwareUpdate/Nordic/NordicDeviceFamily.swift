import GATT
import NordicDFU

/// Nordic DFU's side of a device: Secure or Legacy DFU, in the application or the bootloader,
/// as an update detects it (`DeviceMode`), with SDK 12's experimental buttonless service.
struct NordicDeviceFamily: DeviceFamily {
    /// The services' UUIDs (for devices built with custom UUIDs).
    var uuids: DFUUUIDs
    /// Whether a Legacy device without a DFU Version characteristic is taken for a bootloader.
    var forceBootloaderMode: Bool

    /// The family as `options` detect it.
    init(_ options: DFUOptions.Nordic) {
        uuids = options.uuids
        forceBootloaderMode = options.forceBootloaderMode
    }

    func support(in services: [GATTService], timeout: Duration) async throws -> DFUDeviceSupport? {
        do {
            return try await DeviceMode.detect(
                in: services, uuids: uuids, forceBootloaderMode: forceBootloaderMode,
                experimentalButtonless: true,
                timeout: timeout
            ).map(DFUDeviceSupport.init)
        } catch is LegacyVersionUnreadable {
            throw GATTError.operationFailed(
                operation: "reading the Legacy DFU Version characteristic",
                reason: "the value is not 2 bytes long")
        }
    }

    /// The Secure DFU service (0xFE59) before the Legacy one.
    func advertisedProtocol(_ serviceUUIDs: [BluetoothUUID]) -> DFUProtocol? {
        if serviceUUIDs.contains(uuids.secureService) { return .secure }
        if serviceUUIDs.contains(uuids.legacyService) { return .legacy }
        return nil
    }
}

extension DFUDeviceSupport {
    /// The description of a detected Nordic mode.
    init(_ mode: DeviceMode) {
        switch mode {
        case .secureBootloader:
            self.init(protocolKind: .secure, mode: .bootloader)
        case .secureApplication(_, let kind):
            let buttonless: Buttonless =
                switch kind {
                case .withoutBonds: .withoutBonds
                case .withBonds: .withBonds
                case .experimental: .experimental
                }
            self.init(protocolKind: .secure, mode: .application, buttonless: buttonless)
        case .legacyBootloader(_, _, let version):
            self.init(protocolKind: .legacy, mode: .bootloader, legacyVersion: version)
        case .legacyApplication(_, let version):
            self.init(protocolKind: .legacy, mode: .application, buttonless: .legacy, legacyVersion: version)
        }
    }
}
