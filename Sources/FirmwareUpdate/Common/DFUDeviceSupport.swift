import GATT
import MCUmgr
import NordicDFU

/// What a device offers for firmware updates (Nordic DFU or SMP), found from its services by the detection ``DFUUpdater``
/// itself uses (protocol doc §0.1, §1.2), so that a tool showing a device (`dfu-update info`)
/// and an update agree about it.
public struct DFUDeviceSupport: Sendable, Equatable {
    /// Whether the device runs its application or waits in its bootloader.
    public enum Mode: String, Sendable {
        case application
        case bootloader
    }

    /// How an application is switched into its bootloader. Raw values are the contract's names.
    public enum Buttonless: String, Sendable {
        case withoutBonds = "without_bonds"
        case withBonds = "with_bonds"
        /// SDK 12's experimental buttonless service.
        case experimental
        /// The Legacy DFU service of an application (Start DFU makes it jump).
        case legacy
    }

    public var protocolKind: DFUProtocol
    public var mode: Mode
    /// How the application enters the bootloader; `nil` in the bootloader.
    public var buttonless: Buttonless?
    /// The value of the Legacy DFU Version characteristic, when the device has one.
    public var legacyVersion: LegacyDFUVersion?

    /// Detects what `services` offer; `nil` when they offer no DFU at all. Reads the Legacy DFU
    /// Version characteristic when there is one, within `timeout`. `options.nordic.uuids` names
    /// the services (for devices built with custom UUIDs) and `options.nordic.forceBootloaderMode`
    /// decides a Legacy device without a version, as in an update; SDK 12's experimental
    /// buttonless service is reported whatever `options` say.
    public static func detect(
        in services: [GATTService], options: DFUOptions = DFUOptions(), timeout: Duration
    ) async throws -> DFUDeviceSupport? {
        var options = options
        options.nordic.enableExperimentalButtonless = true
        do {
            if let mode = try await DeviceMode.detect(in: services, options: options, timeout: timeout) {
                return Self(mode)
            }
            return SMPUUIDs.characteristic(in: services) == nil
                ? nil : Self(protocolKind: .smp, mode: .application)
        } catch is LegacyVersionUnreadable {
            throw GATTError.operationFailed(
                operation: "reading the Legacy DFU Version characteristic",
                reason: "the value is not 2 bytes long")
        }
    }

    /// The protocol a device advertises by its service UUIDs: the Secure DFU service (0xFE59)
    /// first, then the Legacy one, then SMP's; `nil` for none.
    public static func advertisedProtocol(_ serviceUUIDs: [BluetoothUUID], uuids: DFUUUIDs = DFUUUIDs())
        -> DFUProtocol?
    {
        if serviceUUIDs.contains(uuids.secureService) { return .secure }
        if serviceUUIDs.contains(uuids.legacyService) { return .legacy }
        if serviceUUIDs.contains(SMPUUIDs.service) { return .smp }
        return nil
    }

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

    /// A description from its parts.
    public init(
        protocolKind: DFUProtocol, mode: Mode, buttonless: Buttonless? = nil,
        legacyVersion: LegacyDFUVersion? = nil
    ) {
        self.protocolKind = protocolKind
        self.mode = mode
        self.buttonless = buttonless
        self.legacyVersion = legacyVersion
    }
}
