import GATT
import NordicDFU

extension DFUDeviceSupport {
    /// What Nordic DFU `services` offer, as an update detects it (`DeviceMode`), with SDK 12's
    /// experimental buttonless service; nil when they offer neither Secure nor Legacy DFU.
    static func nordic(
        in services: [GATTService], uuids: DFUUUIDs, forceBootloaderMode: Bool, timeout: Duration
    ) async throws -> DFUDeviceSupport? {
        do {
            return try await DeviceMode.detect(
                in: services, uuids: uuids, forceBootloaderMode: forceBootloaderMode,
                experimentalButtonless: true,
                timeout: timeout
            ).map(Self.init)
        } catch is LegacyVersionUnreadable {
            throw GATTError.operationFailed(
                operation: "reading the Legacy DFU Version characteristic",
                reason: "the value is not 2 bytes long")
        }
    }

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
