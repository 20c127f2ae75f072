import GATT
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
    /// Version characteristic when there is one, within `timeout`. `uuids` name Nordic's
    /// services (for devices built with custom UUIDs) and `forceBootloaderMode` decides a Legacy
    /// device without a version, as `DFUOptions.Nordic`'s do in an update; SDK 12's experimental
    /// buttonless service is always reported. Each family is asked in turn
    /// (`DFUOptions.deviceFamilies`).
    public static func detect(
        in services: [GATTService], uuids: DFUUUIDs = DFUUUIDs(), forceBootloaderMode: Bool = false,
        timeout: Duration
    ) async throws -> DFUDeviceSupport? {
        var options = DFUOptions()
        options.nordic.uuids = uuids
        options.nordic.forceBootloaderMode = forceBootloaderMode
        return try await detect(in: services, families: options.deviceFamilies, timeout: timeout)?.support
    }

    /// The protocol a device advertises by its service UUIDs: the Secure DFU service (0xFE59)
    /// first, then the Legacy one, then SMP's (`DFUOptions.deviceFamilies`' order); `nil` for none.
    public static func advertisedProtocol(_ serviceUUIDs: [BluetoothUUID], uuids: DFUUUIDs = DFUUUIDs())
        -> DFUProtocol?
    {
        var options = DFUOptions()
        options.nordic.uuids = uuids
        return advertisedProtocol(serviceUUIDs, families: options.deviceFamilies)
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
