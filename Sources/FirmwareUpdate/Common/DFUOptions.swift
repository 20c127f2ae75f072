import GATT
import NordicDFU

/// How an update runs: what both families read, here, and what one family reads, in its group
/// (`nordic`, `smp`). The defaults suit a stock nRF5 SDK 12–17 (secure) or SDK 7–11 (legacy)
/// device and a stock MCUboot; docs/engine.md says why each default is what it is.
public struct DFUOptions: Sendable {
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
    /// Bound on answers that need flash work (real time): Nordic's Start DFU, Create, Execute,
    /// Validate; SMP's upload chunks (the first one's bound grows with the image's erase) and
    /// image state changes.
    public var responseTimeout: Duration = .seconds(20)
    /// Bound on quick answers (real time): Nordic's Select, Set PRN, Calculate Checksum and
    /// packet receipt notifications (a lost one costs this much before the engine asks for the
    /// checksum itself); SMP's parameters, bootloader information and reassembly probe.
    public var notificationTimeout: Duration = .seconds(5)
    /// Bound on finding the bootloader after the device rebooted (real time).
    public var bootloaderScanTimeout: Duration = .seconds(10)
    /// Connection attempts per connect before giving up.
    public var connectionAttempts = 3
    /// Reconnections after a lost link during one part: Secure DFU resumes from what the device
    /// holds, Legacy DFU restarts the part.
    public var retries = 3
    /// Addresses of other devices nearby (a fleet's): never taken for this one when it is looked
    /// for after a reboot, at address + 1 or − 1.
    public var otherDevices: Set<BluetoothAddress> = []

    /// What only a Nordic DFU update reads (pacing, the bootloader, resume, custom UUIDs).
    public var nordic = Nordic()
    /// What only an SMP update reads (activation, the swap's bound, erasing the settings).
    public var smp = SMP()

    /// The defaults of both families.
    public init() {}
}
