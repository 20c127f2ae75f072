import GATT
import MCUmgr
import NordicDFU

/// Everything that makes one simulated device: the `--sim-*` options of the CLI contract and the
/// `simulate` object of a fleet inventory.
public struct SimulatedDeviceConfiguration: Sendable {
    /// What runs when the simulation starts (`--simulate`).
    public var kind: SimulatedDeviceKind
    /// The address the device advertises at when the simulation starts. A device that starts in
    /// its bootloader (`secure`, `legacy`) was entered without bond data, so its application's
    /// own address is this one minus 1 (protocol doc §0.4).
    public var address: BluetoothAddress
    /// The name the application advertises.
    public var name: String
    /// The name the bootloader advertises when no buttonless jump set one: Nordic's `DfuTarg`
    /// unless changed (a fleet entry named by name that starts in its bootloader advertises its
    /// name, so that the fleet finds it).
    public var bootloaderName = "DfuTarg"
    /// The Legacy bootloader's DFU version, 0.5 … 0.8.
    public var legacyDFUVersion: LegacyDFUVersion
    /// The Firmware Revision String the application reports. Nil: `defaultFirmwareVersion`. The
    /// Secure bootloader never reads it; it checks downgrades against `settingsApplicationVersion`.
    public var firmwareVersion: String?
    /// The application version the Secure bootloader's settings hold (`s_dfu_settings.app_version`,
    /// SDK 15–17), which an application's or SoftDevice's init packet `fw_version` must reach
    /// (`nrf_dfu_ver_validation.c`). Apart from `firmwareVersion`, as on a device: settings that
    /// `nrfutil settings generate` wrote, or that no update has filled, need not match what the
    /// application reports. 0 unless set; an installed application's `fw_version` replaces it.
    public var settingsApplicationVersion: UInt32 = 0

    /// What the application reports when no firmware version is configured (the contract's default).
    public static let defaultFirmwareVersion = "1.0.0"
    /// The hw_version the Secure bootloader accepts.
    public var hardwareVersion: UInt32
    /// FWID of the SoftDevice the device holds, checked against `sd_req`: by default S140 6.1.1
    /// (0xB6, nRF5 SDK 15.3) for the Secure kinds, S132 2.0.1 (0x88, SDK 11) for the Legacy ones.
    public var softDeviceID: UInt16
    /// When set, the Secure bootloader requires init packets signed by this key
    /// (`DFUPublicKey(contentsOf:)` reads `--sim-public-key FILE`). When nil, signatures are not
    /// checked.
    public var publicKey: DFUPublicKey?
    /// The ATT MTU the device offers.
    public var mtu: Int
    /// Faults to inject (`--sim-fault`).
    public var faults: [SimulatedFault]
    /// The link and flash model's parameters.
    public var timing: SimulationTiming
    /// The Secure bootloader's maximum init command size (Select response): 512 (SDK 15.3+) or
    /// 256 (older SDKs).
    public var commandObjectMaximumSize: Int
    /// The largest image the device's free bank takes: 900 KiB for an nRF52840 beside its
    /// SoftDevice and bootloader; larger to model parts with more flash.
    public var bankCapacity = 900 * 1024
    /// Legacy device type / revision in UICR; nil means erased UICR (any value accepted).
    public var legacyDeviceType: UInt16?
    public var legacyDeviceRevision: UInt16?
    /// The SMP device's slots and transport (`smp-app` only).
    public var smp = SMPDeviceConfiguration()

    /// A device of `kind` with the contract's defaults for everything else.
    public init(
        kind: SimulatedDeviceKind, address: BluetoothAddress = .simulatedDevice,
        name: String = "DfuSim", legacyDFUVersion: LegacyDFUVersion = LegacyDFUVersion(major: 0, minor: 8),
        firmwareVersion: String? = nil, hardwareVersion: UInt32 = 52, softDeviceID: UInt16? = nil,
        publicKey: DFUPublicKey? = nil, mtu: Int = 247, faults: [SimulatedFault] = [],
        timing: SimulationTiming = SimulationTiming(), commandObjectMaximumSize: Int = 512,
        legacyDeviceType: UInt16? = nil, legacyDeviceRevision: UInt16? = nil
    ) {
        self.kind = kind
        self.address = address
        self.name = name
        self.legacyDFUVersion = legacyDFUVersion
        self.firmwareVersion = firmwareVersion
        self.hardwareVersion = hardwareVersion
        self.softDeviceID = softDeviceID ?? (kind.isLegacy ? 0x88 : 0xB6)
        self.publicKey = publicKey
        self.mtu = mtu
        self.faults = faults
        self.timing = timing
        self.commandObjectMaximumSize = commandObjectMaximumSize
        self.legacyDeviceType = legacyDeviceType
        self.legacyDeviceRevision = legacyDeviceRevision
    }

    /// Checks the values a user can get wrong; throws with a message naming the option.
    public func validate() throws(SimulatorConfigurationError) {
        guard (23...517).contains(mtu) else {
            throw SimulatorConfigurationError("--sim-mtu \(mtu) is outside 23…517")
        }
        guard legacyDFUVersion.major == 0, (5...8).contains(legacyDFUVersion.minor) else {
            throw SimulatorConfigurationError("--sim-dfu-version \(legacyDFUVersion) is not 0.5 … 0.8")
        }
        guard timing.connectionInterval > .zero, timing.packetsPerEvent >= 1, timing.flashOperationQueue >= 1,
            timing.packetBufferOverride ?? 1 >= 1,
            timing.pageSize > 0, timing.singleSlotPayload > 0
        else {
            throw SimulatorConfigurationError(
                "the simulation timing needs a positive connection interval, page size and slot size, and at least one packet per event, flash operation and packet buffer"
            )
        }
        guard (1...4096).contains(commandObjectMaximumSize) else {
            throw SimulatorConfigurationError("command object maximum size \(commandObjectMaximumSize)")
        }
        if kind == .smpApp {
            try smp.validate()
            if let firmwareVersion, MCUbootVersion(firmwareVersion) == nil {
                throw SimulatorConfigurationError(
                    "--sim-firmware-version \(firmwareVersion) is not an MCUboot version (major.minor.revision[+build])"
                )
            }
        }
    }
}

/// nrfutil's version convention: x.y.z ↔ x·10000 + y·100 + z.
enum VersionString {
    /// The integer of `x.y.z` (each part 0…99 except x); nil when the string is not of that form.
    static func integer(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { UInt32($0) }
        guard parts.count == 3, let x = parts[0], let y = parts[1], let z = parts[2], y < 100, z < 100,
            x < 429_496
        else { return nil }
        return x * 10000 + y * 100 + z
    }

    /// `x.y.z` of an integer version.
    static func string(_ value: UInt32) -> String { "\(value / 10000).\(value / 100 % 100).\(value % 100)" }
}
