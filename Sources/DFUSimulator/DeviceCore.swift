import GATT
import NordicDFU

/// What survives a reset of a simulated device: its flash (installed images, bootloader
/// settings), its configuration and the fault bookkeeping. The running firmware is separate
/// (`DeviceFirmware`); its RAM state is lost on every reset.
struct DeviceCore: Sendable {
    private(set) var configuration: SimulatedDeviceConfiguration
    /// The configured timing, with `slow-flash` applied to every page erase.
    private(set) var timing: SimulationTiming
    /// The application's address; bootloaders without shared bond data use it + 1.
    let identityAddress: BluetoothAddress
    var banks: FlashBanks
    var flash: FlashQueue
    /// The MCUboot slots of an SMP device (`smp-app`); nil for the nRF5 kinds.
    var mcuboot: MCUbootFlash?

    // Bootloader settings.
    /// The application version downgrades are checked against (`s_dfu_settings.app_version`).
    var applicationVersion: UInt32
    var bootloaderVersion: UInt32 = 0
    var softDeviceID: UInt16
    /// The name set through buttonless DFU, advertised by the bootloader.
    var bootloaderName: String?
    /// The Firmware Revision String the application reports.
    var firmwareRevision: String
    /// How many times an SMP device's settings (its storage partition) were erased.
    var settingsErasures = 0
    /// Whether the device holds the central's bond: the application's peer manager keeps it,
    /// and buttonless DFU with bonds hands it to the bootloader (peer data in its settings).
    var holdsBond = false

    // Fault bookkeeping.
    private var notificationsSent = 0
    private var checksumsReported = 0
    private var imagesCompleted = 0
    private(set) var connectAttempts = 0
    private var disconnectAtFired = false

    init(configuration: SimulatedDeviceConfiguration) {
        self.configuration = configuration
        identityAddress =
            configuration.kind.startsInBootloader ? configuration.address.decremented : configuration.address
        let factory = configuration.kind.startsInBootloader ? nil : Self.factoryApplication(configuration)
        banks = FlashBanks(factoryApplication: factory)
        flash = FlashQueue(
            packetBuffers: configuration.timing.packetBuffers(mtu: configuration.mtu),
            operationLimit: configuration.timing.flashOperationQueue)
        applicationVersion = configuration.settingsApplicationVersion
        softDeviceID = configuration.softDeviceID
        firmwareRevision =
            configuration.firmwareVersion ?? SimulatedDeviceConfiguration.defaultFirmwareVersion
        var timing = configuration.timing
        for case .slowFlash(let duration) in configuration.faults { timing.pageErase = duration }
        self.timing = timing
        if configuration.kind == .smpApp { installFactoryMCUbootImage() }
    }

    /// Stand-in bytes for the application the device left the factory with.
    private static func factoryApplication(_ configuration: SimulatedDeviceConfiguration) -> InstalledImage {
        let bytes = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        return InstalledImage(
            bytes: bytes[...],
            version: VersionString.integer(
                configuration.firmwareVersion ?? SimulatedDeviceConfiguration.defaultFirmwareVersion))
    }

    /// Stops injecting faults from now on: what the device holds and its counters stay (a soak
    /// then checks that the same device takes the update on a healthy link).
    mutating func clearFaults() {
        configuration.faults = []
        timing.pageErase = configuration.timing.pageErase
    }

    /// Whether the next notification is the one `drop-notification` loses.
    mutating func notificationIsLost() -> Bool {
        notificationsSent += 1
        return configuration.faults.contains(.dropNotification(notificationsSent))
    }

    /// Counts an image completed (its last Execute, or Validate); whether `drop-final-answer`
    /// loses the answer to it.
    mutating func finalAnswerIsLost() -> Bool {
        imagesCompleted += 1
        return configuration.faults.contains(.dropFinalAnswer(imagesCompleted))
    }

    /// `crc` as the device reports it: wrong, once, when `crc-error` names this report.
    mutating func reportedChecksum(_ crc: UInt32) -> UInt32 {
        checksumsReported += 1
        return configuration.faults.contains(.crcError(checksumsReported)) ? ~crc : crc
    }

    /// Counts a connection attempt; false while `reject-connect` refuses it.
    mutating func acceptsConnection() -> Bool {
        connectAttempts += 1
        for case .rejectConnect(let count) in configuration.faults where connectAttempts <= count {
            return false
        }
        return true
    }

    /// Whether `disconnect-at` drops the link now that `received` bytes of the image arrived.
    mutating func linkDropsAfterReceiving(_ received: Int) -> Bool {
        guard !disconnectAtFired else { return false }
        for case .disconnectAt(let bytes) in configuration.faults where received >= bytes {
            disconnectAtFired = true
            return true
        }
        return false
    }
}

extension DeviceCore {
    /// Activates `image` and records in the settings what it changed: application and
    /// bootloader versions, the SoftDevice's FWID, the application's reported version.
    mutating func install(_ image: ValidatedImage) {
        banks.activate(image)
        let layout = image.layout
        if layout.application > 0, let version = image.version {
            applicationVersion = version
            firmwareRevision = VersionString.string(version)
        }
        if layout.bootloader > 0, let version = image.version { bootloaderVersion = version }
        if layout.softdevice > 0, let id = FlashBanks.softDeviceID(in: image) { softDeviceID = id }
    }
}
