import GATT

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
/// short connection that reads the Device Information Service and detects its DFU mode.
public struct FleetDeviceInfo: Sendable, Equatable {
    public var address: String
    public var name: String?
    /// The Firmware Revision String (0x2A26), when the device runs an application that has one.
    public var firmwareRevision: String?
    /// The Hardware Revision String (0x2A27), when present.
    public var hardwareRevision: String?
    /// `application` or `bootloader`; nil when it was not connected.
    public var mode: String?
    /// `secure` or `legacy`; nil when it was not connected.
    public var dfuProtocol: String?

    public init(
        address: String, name: String? = nil, firmwareRevision: String? = nil,
        hardwareRevision: String? = nil,
        mode: String? = nil, dfuProtocol: String? = nil
    ) {
        self.address = address
        self.name = name
        self.firmwareRevision = firmwareRevision
        self.hardwareRevision = hardwareRevision
        self.mode = mode
        self.dfuProtocol = dfuProtocol
    }

    /// Whether the device waits in its bootloader.
    public var inBootloader: Bool { mode == "bootloader" }
}
