import GATT
import NordicDFU

/// How an update runs. The defaults suit a stock nRF5 SDK 12–17 (secure) or SDK 7–11 (legacy)
/// device; docs/engine.md says why each default is what it is.
public struct DFUOptions: Sendable {
    /// Packet receipt notifications every N packets; 0 turns them off. `nil` chooses per
    /// protocol: for Secure DFU the packets of one data object, so that the receipt for each
    /// object's last packet carries the offset and CRC that Calculate Checksum would otherwise
    /// ask for (one round trip fewer per object; a shorter last object is still checksummed);
    /// 10 for Legacy DFU (the SDK 11 bootloader is overrun without them and can only report it
    /// at the very end).
    public var packetReceiptNotifications: UInt16?
    /// The largest packet written to the packet characteristic. The engine uses the link's
    /// maximum write-without-response length, rounded down to a multiple of 4 (Secure) or fixed
    /// at 20 (Legacy), and never more than this.
    public var maximumPacketSize: Int = 512
    /// Update even when the device already runs the packaged version.
    public var force = false
    /// The package's version as the user states it (`x.y.z` or an integer); overrides the version
    /// in the init packet.
    public var packageVersion: String?
    /// Where the application reports its version; default: Firmware Revision String (0x2A26).
    public var versionCharacteristic: BluetoothUUID = DeviceInformationUUIDs.firmwareRevision
    /// Bound on each connection attempt (real time).
    public var connectTimeout: Duration = .seconds(10)
    /// Bound on answers that need flash work: Start DFU, Create, Execute, Validate (real time).
    public var responseTimeout: Duration = .seconds(20)
    /// Bound on quick answers and packet receipt notifications: Select, Set PRN, Calculate
    /// Checksum (real time). A lost packet receipt notification costs this much before the
    /// engine asks for the checksum itself.
    public var notificationTimeout: Duration = .seconds(5)
    /// Bound on finding the bootloader after the device rebooted (real time).
    public var bootloaderScanTimeout: Duration = .seconds(10)
    /// Connection attempts per connect before giving up.
    public var connectionAttempts = 3
    /// Reconnections after a lost link during one part: Secure DFU resumes from what the device
    /// holds, Legacy DFU restarts the part.
    public var retries = 3
    /// Wait after creating the first data object of a connection (on link time), while the
    /// bootloader erases flash.
    public var firstDataObjectDelay: Duration = .zero
    /// Wait after creating every data object (on link time), while the bootloader erases the
    /// object's flash page. None by default: a bootloader whose packet buffers hold what
    /// arrives during the erase needs none, and when an object arrives incomplete right after
    /// Create the engine resends the missing bytes and from then on waits after each Create
    /// what the loss showed (`LearnedFlashWait`, at most 2 s; see docs/engine.md). The longer
    /// of this and the learned wait applies, from Create's answer; with neither, an object's
    /// packets follow its Create as soon as the device has it (docs/engine.md, "Streaming
    /// behind Create").
    public var dataObjectPreparationDelay: Duration = .zero
    /// The name the Secure bootloader advertises after a buttonless jump without bonds.
    public var alternativeAdvertisingName: AlternativeAdvertisingName = .random
    /// Where to look for the bootloader after a jump or a reboot between parts.
    public var bootloaderLocation: BootloaderLocation = .automatic
    /// Accept SDK 12's experimental buttonless service (it has no authentication).
    public var enableExperimentalButtonless = false
    /// Secure DFU: always start from zero instead of resuming what the device holds.
    public var disableResume = false
    /// Legacy DFU without a DFU Version characteristic: treat the device as a bootloader.
    public var forceBootloaderMode = false
    /// Services and characteristics, for devices built with custom UUIDs.
    public var uuids = DFUUUIDs()
    /// Addresses of other devices nearby (a fleet's): never taken for this one when it is looked
    /// for after a reboot, at address + 1 or − 1.
    public var otherDevices: Set<BluetoothAddress> = []

    /// SMP: how the uploaded images are activated.
    public var smpActivation: SMPActivation = .testAndConfirm
    /// SMP: bound on finding the device again after its reset (real time); MCUboot swaps the
    /// slots before the new image starts, seconds per hundred kilobytes on an nRF52.
    public var smpResetTimeout: Duration = .seconds(60)
    /// SMP: erase the application's settings (Zephyr's basic group, erase storage) after the
    /// upload and before the reset, for a new image whose settings layout changed; the bonds
    /// kept there go too. Needs a reset (not with `noReset`).
    public var smpEraseSettings = false

    public init() {}

    /// How an SMP update activates the images it uploaded (MCUboot's test and confirm).
    public enum SMPActivation: String, Sendable, CaseIterable {
        /// Mark for test, reset, check that the device runs the new images, confirm them: a new
        /// image that does not boot is reverted by MCUboot and reported as `imageReverted`.
        case testAndConfirm = "test-and-confirm"
        /// Mark for test, reset, check: the images run on test, and MCUboot reverts them at the
        /// next reset unless they are confirmed (by themselves, or later).
        case testOnly = "test-only"
        /// Mark confirmed at once (no way back), reset, check.
        case confirmOnly = "confirm-only"
        /// Mark for test only: the device swaps at its next reset.
        case noReset = "no-reset"
    }

    /// What the bootloader is told to advertise as, before a buttonless jump without bonds.
    public enum AlternativeAdvertisingName: Sendable, Equatable {
        /// Do not set a name; the bootloader advertises its default (`DfuTarg`).
        case disabled
        /// `Dfu` followed by five random digits, so that the bootloader is found among others.
        case random
        /// This name, cut to 20 bytes of UTF-8.
        case name(String)
    }

    /// Where the bootloader advertises after it starts.
    public enum BootloaderLocation: Sendable, Equatable {
        /// The device's address, its address + 1 (protocol doc §0.4) or the advertising name set
        /// before the jump, whichever appears.
        case automatic
        /// The device's own address (bonded or legacy bootloaders).
        case sameAddress
        /// Address + 1 (bootloaders without bond information).
        case incrementedAddress
        /// A device advertising this name.
        case name(String)
    }
}
