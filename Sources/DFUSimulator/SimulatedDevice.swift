import GATT
import NordicDFU

/// The link between the central and a device while it is connected.
struct SimulatedConnection: Sendable {
    let id: Int
    var schedule: LinkSchedule
    let mtu: Int
    var subscriptions: [BluetoothUUID: NotificationChannel] = [:]
    let disconnection = DisconnectionSignal()
    /// Whether the link is encrypted (with a bond both sides hold), and whether the central
    /// already tried to get it so on this link (it tries once, as bluetoothd does).
    var isEncrypted = false
    var securityTried = false
}

/// One simulated device: what survives resets (`core`), what runs (`firmware`), where it
/// advertises and its current link.
struct SimulatedDevice: Sendable {
    var core: DeviceCore
    var firmware: DeviceFirmware
    var address: BluetoothAddress
    var advertisedName: String
    /// Virtual time from which the device advertises (after a reset, once it has booted).
    var availableAt: Nanoseconds = 0
    var connection: SimulatedConnection?
    /// When the last link went down.
    var lastDisconnection: Nanoseconds = 0

    init(configuration: SimulatedDeviceConfiguration) {
        core = DeviceCore(configuration: configuration)
        firmware = .off
        address = configuration.address
        advertisedName = configuration.name
        if configuration.kind.startsInBootloader {
            start(.bootloader(keepsAddress: false), at: 0)
        } else {
            start(.applicationIfValid, at: 0)
        }
        availableAt = 0  // powered up before the simulation starts, not booting at time 0
    }

    var configuration: SimulatedDeviceConfiguration { core.configuration }

    /// Boots into `target` at `time`; it advertises once booted.
    mutating func start(_ target: BootTarget, at time: Nanoseconds) {
        let kind = configuration.kind
        var target = target
        if target == .applicationIfValid, !core.banks.hasApplication {
            target = .bootloader(keepsAddress: kind == .secureAppBonded)
        }
        var bootTime = core.timing.bootTime.nanoseconds
        switch target {
        case .firmwareLoader,
            .applicationIfValid where core.mcuboot?.application.applicationLost == true:
            // MCUboot starts the loader when asked, or when slot 0 holds no application
            let smp = configuration.smp
            firmware = .smpApplication(
                SMPApplication(configuration: smp, timing: core.timing, isFirmwareLoader: true))
            address = core.identityAddress.lowestBitFlipped
            advertisedName = SMPDeviceConfiguration.firmwareLoaderName
        case .applicationIfValid where kind == .smpApp:
            bootTime += core.bootMCUboot()
            firmware = .smpApplication(SMPApplication(configuration: configuration.smp, timing: core.timing))
            address = core.identityAddress
            advertisedName = configuration.name
        case .applicationIfValid:
            let entry: ApplicationFirmware.DFUEntry =
                switch kind {
                case .secure, .secureApp: .buttonlessWithoutBonds
                case .secureAppBonded: .buttonlessWithBonds
                case .legacy, .legacyApp, .smpApp: .legacy
                }
            firmware = .application(ApplicationFirmware(entry: entry))
            address = core.identityAddress
            advertisedName = configuration.name
            core.bootloaderName = nil
        case .bootloader(let keepsAddress):
            firmware =
                kind.isLegacy
                ? .legacyBootloader(LegacyBootloader())
                : .secureBootloader(SecureBootloader(requiresBonds: kind == .secureAppBonded))
            address = keepsAddress ? core.identityAddress : core.identityAddress.incremented
            let configured = configuration.bootloaderName
            advertisedName = kind.isLegacy ? configured : core.bootloaderName ?? configured
        }
        core.flash.reset(at: time)
        availableAt = time + bootTime
    }

    var advertisement: Advertisement {
        Advertisement(
            address: address, addressType: .random, name: advertisedName, rssi: -55,
            serviceUUIDs: firmware.advertisedServices)
    }

    /// The ATT MTU of a new link: Legacy devices stay at 23; a Secure bootloader rounds the
    /// payload down to whole words (protocol doc §2.1).
    var linkMTU: Int {
        if configuration.kind.isLegacy { return 23 }
        if firmware.isBootloader { return 3 + (configuration.mtu - 3) / 4 * 4 }
        return configuration.mtu
    }

    /// Whether `identifier` names this device: its address or name now, or as configured.
    func matches(_ identifier: DeviceIdentifier) -> Bool {
        switch identifier {
        case .address(let wanted):
            return wanted == address || wanted == configuration.address || wanted == core.identityAddress
        case .name(let name): return name == advertisedName || name == configuration.name
        }
    }
}
