import GATT
import NordicDFU

/// Which buttonless characteristic an application offers (protocol doc §2.9).
enum ButtonlessKind: Sendable, Equatable {
    case withoutBonds
    case withBonds
    case experimental
}

/// What a connected device offers for DFU, found from its services (protocol doc §0.1, §1.2).
enum DeviceMode: Sendable {
    case secureBootloader(controlPoint: any GATTCharacteristic, packet: any GATTCharacteristic)
    case secureApplication(buttonless: any GATTCharacteristic, kind: ButtonlessKind)
    case legacyBootloader(
        controlPoint: any GATTCharacteristic, packet: any GATTCharacteristic, version: LegacyDFUVersion?)
    case legacyApplication(controlPoint: any GATTCharacteristic, version: LegacyDFUVersion?)

    var format: NordicDFUProtocol {
        switch self {
        case .secureBootloader, .secureApplication: .secure
        case .legacyBootloader, .legacyApplication: .legacy
        }
    }

    var isBootloader: Bool {
        switch self {
        case .secureBootloader, .legacyBootloader: true
        case .secureApplication, .legacyApplication: false
        }
    }

    var summary: String {
        switch self {
        case .secureBootloader: "Secure DFU bootloader"
        case .secureApplication(_, let kind): "application with buttonless Secure DFU (\(kind))"
        case .legacyBootloader(_, _, let version):
            "Legacy DFU bootloader" + (version.map { " (DFU version \($0))" } ?? "")
        case .legacyApplication: "application with Legacy DFU"
        }
    }

    /// Detects the mode, checking in the Android library's order: buttonless with bonds, without
    /// bonds, Secure bootloader, Legacy (application, then bootloader), experimental buttonless.
    /// `nil` when the device offers no DFU at all. `uuids` name the services (custom UUIDs);
    /// `forceBootloaderMode` decides a Legacy device without a version that offers more than
    /// DFU; the experimental buttonless service counts only with `experimentalButtonless`. A
    /// Legacy DFU Version characteristic is read within `timeout`.
    static func detect(
        in services: [GATTService], uuids: DFUUUIDs, forceBootloaderMode: Bool, experimentalButtonless: Bool,
        timeout: Duration
    ) async throws -> DeviceMode? {
        if let secure = services.first(where: { $0.uuid == uuids.secureService }) {
            if let buttonless = secure.characteristic(uuids.buttonlessWithBonds) {
                return .secureApplication(buttonless: buttonless, kind: .withBonds)
            }
            if let buttonless = secure.characteristic(uuids.buttonlessWithoutBonds) {
                return .secureApplication(buttonless: buttonless, kind: .withoutBonds)
            }
            if let controlPoint = secure.characteristic(uuids.secureControlPoint),
                let packet = secure.characteristic(uuids.securePacket)
            {
                return .secureBootloader(controlPoint: controlPoint, packet: packet)
            }
        }
        if let legacy = services.first(where: { $0.uuid == uuids.legacyService }),
            let controlPoint = legacy.characteristic(uuids.legacyControlPoint)
        {
            let packet = legacy.characteristic(uuids.legacyPacket)
            var version: LegacyDFUVersion?
            if let versionCharacteristic = legacy.characteristic(uuids.legacyVersion) {
                version = LegacyDFUVersion(decoding: try await versionCharacteristic.read(timeout: timeout))
                if version == nil { throw LegacyVersionUnreadable() }
            }
            guard let packet else { return .legacyApplication(controlPoint: controlPoint, version: version) }
            if let version {
                return version.isApplicationMode
                    ? .legacyApplication(controlPoint: controlPoint, version: version)
                    : .legacyBootloader(controlPoint: controlPoint, packet: packet, version: version)
            }
            let generic: Set<BluetoothUUID> = [BluetoothUUID(short: 0x1800), BluetoothUUID(short: 0x1801)]
            let onlyDFU = services.allSatisfy { $0.uuid == uuids.legacyService || generic.contains($0.uuid) }
            return onlyDFU || forceBootloaderMode
                ? .legacyBootloader(controlPoint: controlPoint, packet: packet, version: nil)
                : .legacyApplication(controlPoint: controlPoint, version: nil)
        }
        if experimentalButtonless,
            let service = services.first(where: { $0.uuid == uuids.experimentalButtonless }),
            let buttonless = service.characteristic(uuids.experimentalButtonless)
        {
            return .secureApplication(buttonless: buttonless, kind: .experimental)
        }
        return nil
    }
}

/// The Legacy DFU Version characteristic held something other than 2 bytes.
struct LegacyVersionUnreadable: Error {}
