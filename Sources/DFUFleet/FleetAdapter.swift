import FirmwareUpdate
import GATT
import NordicDFU

/// One way the fleet reaches devices: a Bluetooth adapter (one `GATTCentral`), or a set of
/// in-process centrals that stand for one, such as simulated devices that each run on a link
/// of their own.
public struct FleetAdapter: Sendable {
    /// `hci0`, or `simulated`; inventory entries name it in `adapter`.
    public var name: String
    /// The most connections the fleet asks of this adapter at once.
    public var maximumConnections: Int
    /// Scanned once per run; a device is updated through the central that saw it.
    public var centrals: [any GATTCentral]

    /// An adapter of one central (a BlueZ adapter). Controllers commonly hold 4 to 10 LE links;
    /// docs/fleet.md says how the default was chosen.
    public init(name: String, central: any GATTCentral, maximumConnections: Int = 4) {
        self.init(name: name, centrals: [central], maximumConnections: maximumConnections)
    }

    /// An adapter of several centrals that share one connection limit.
    public init(name: String, centrals: [any GATTCentral], maximumConnections: Int) {
        self.name = name
        self.centrals = centrals
        self.maximumConnections = max(1, maximumConnections)
    }
}

/// What the fleet learned of a device before updating it: from its advertisement, and from a
/// short look at it (`DeviceProbe`).
public struct FleetDeviceInfo: Sendable, Equatable {
    public var address: BluetoothAddress
    public var name: String?
    /// The version its application reports, when it runs one that has it.
    public var firmwareRevision: String?
    /// The Hardware Revision String (0x2A27), when present.
    public var hardwareRevision: String?
    /// Application or bootloader; nil when it was not looked at, or offers no DFU.
    public var mode: DFUDeviceSupport.Mode?
    /// Secure or Legacy DFU; nil when it was not looked at, or offers no DFU.
    public var dfuProtocol: DFUProtocol?
    /// An SMP device's bootloader and its mode, when the device tells.
    public var bootloader: SMPBootloader?
    /// An SMP device's image layout, as its list shows it.
    public var imageLayout: SMPImageLayout?
    /// Whether its probe subscribed to a notification (`DeviceProbe.subscribed`).
    public var probeSubscribed = false

    public init(
        address: BluetoothAddress, name: String? = nil, firmwareRevision: String? = nil,
        hardwareRevision: String? = nil,
        mode: DFUDeviceSupport.Mode? = nil, dfuProtocol: DFUProtocol? = nil
    ) {
        self.address = address
        self.name = name
        self.firmwareRevision = firmwareRevision
        self.hardwareRevision = hardwareRevision
        self.mode = mode
        self.dfuProtocol = dfuProtocol
    }

    /// What a probe of the device found; `name` stands in when it advertised none.
    public init(_ probe: DeviceProbe, name: String?) {
        let inBootloader = probe.support?.mode == .bootloader
        self.init(
            address: probe.address, name: probe.name ?? name,
            firmwareRevision: inBootloader ? nil : probe.firmwareRevision,
            hardwareRevision: inBootloader ? nil : probe.hardwareRevision, mode: probe.support?.mode,
            dfuProtocol: probe.support?.protocolKind)
        bootloader = probe.bootloader
        imageLayout = probe.imageLayout
        probeSubscribed = probe.subscribed
    }

    /// Whether the device waits in its bootloader.
    public var inBootloader: Bool { mode == .bootloader }
}
