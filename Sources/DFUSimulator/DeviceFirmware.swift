import GATT
import MCUmgr
import NordicDFU

/// The firmware a simulated device runs right now. Its RAM state is this value; a reset replaces it.
enum DeviceFirmware: Sendable {
    case application(ApplicationFirmware)
    case secureBootloader(SecureBootloader)
    case legacyBootloader(LegacyBootloader)
    case smpApplication(SMPApplication)
    /// Resetting: nothing runs. Also holds the place while a bootloader value is mutated, so that
    /// its image buffer stays uniquely referenced and is not copied on every packet.
    case off

    private static let uuids = DFUUUIDs()

    var isBootloader: Bool {
        switch self {
        case .secureBootloader, .legacyBootloader: true
        case .application, .smpApplication, .off: false
        }
    }

    var services: [ServiceSpec] {
        switch self {
        case .application(let application): application.services
        case .secureBootloader(let bootloader):
            GATTLayout.secureBootloader(requiringBonds: bootloader.requiresBonds)
        case .legacyBootloader: GATTLayout.legacyBootloader
        case .smpApplication: GATTLayout.smpApplication
        case .off: []
        }
    }

    var advertisedServices: [BluetoothUUID] {
        switch self {
        case .application(let application): application.advertisedServices
        case .secureBootloader: [Self.uuids.secureService]
        case .legacyBootloader: [Self.uuids.legacyService]
        case .smpApplication: [SMPUUIDs.service]
        case .off: []
        }
    }

    /// The value of a readable characteristic.
    func read(_ characteristic: BluetoothUUID, core: DeviceCore) -> [UInt8]? {
        switch characteristic {
        case DeviceInformationUUIDs.firmwareRevision: Array(core.firmwareRevision.utf8)
        case Self.uuids.legacyVersion:
            if case .legacyBootloader = self {
                core.configuration.legacyDFUVersion.encoded
            } else {
                LegacyDFUVersion(major: 0, minor: 1).encoded
            }
        default: nil
        }
    }

    mutating func write(
        _ characteristic: BluetoothUUID, _ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore
    )
        -> DeviceOutput
    {
        switch self {
        case .application(let application):
            return application.write(characteristic, bytes, at: time, core: &core)
        case .secureBootloader(var bootloader):
            self = .off
            defer { self = .secureBootloader(bootloader) }
            return bootloader.write(characteristic, bytes, at: time, core: &core)
        case .legacyBootloader(var bootloader):
            self = .off
            defer { self = .legacyBootloader(bootloader) }
            return bootloader.write(characteristic, bytes, at: time, core: &core)
        case .smpApplication(var application):
            guard characteristic == SMPUUIDs.characteristic else { return .none }
            self = .off
            defer { self = .smpApplication(application) }
            return application.write(bytes, at: time, core: &core)
        case .off:
            return .none
        }
    }

    /// The link dropped without a reset.
    mutating func linkDropped() {
        switch self {
        case .legacyBootloader(var bootloader):
            bootloader.linkDropped()
            self = .legacyBootloader(bootloader)
        case .smpApplication(var application):
            application.linkDropped()
            self = .smpApplication(application)
        default:
            break
        }
    }
}
