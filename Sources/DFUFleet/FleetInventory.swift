import Foundation
import GATT
import NordicDFU

/// The devices of a fleet update and how each one's package is chosen (docs/fleet.md): read from
/// the JSON or CSV inventory of docs/cli-contract.md ("Fleet inventory").
public struct FleetInventory: Sendable, Equatable {
    /// Values a device entry falls back to.
    public struct Defaults: Sendable, Equatable {
        public var package: String?
        public var adapter: String?
        public var force: Bool
        /// The security of devices that neither their entry nor a rule says anything about.
        public var security: DeviceSecurity

        public init(
            package: String? = nil, adapter: String? = nil, force: Bool = false,
            security: DeviceSecurity = DeviceSecurity()
        ) {
            self.package = package
            self.adapter = adapter
            self.force = force
            self.security = security
        }
    }

    public var defaults: Defaults
    public var devices: [FleetDeviceEntry]
    /// Tried in order for a device without a package of its own; the first that matches wins.
    public var rules: [FleetRule]

    /// The adapter the entry's device is to be reached through: its own, else the defaults'
    /// (nil: any adapter in use).
    public func adapter(of entry: FleetDeviceEntry) -> String? { entry.adapter ?? defaults.adapter }

    /// An inventory; throws when two entries name the same device.
    public init(defaults: Defaults = .init(), devices: [FleetDeviceEntry], rules: [FleetRule] = [])
        throws(FleetInventoryError)
    {
        var seen = Set<DeviceIdentifier>()
        for (index, entry) in devices.enumerated() {
            if let problem = DeviceIdentifier.problem(with: entry.device) {
                throw FleetInventoryError("device \(index + 1): \(problem)")
            }
            // addresses in any case name one device
            guard seen.insert(entry.identifier).inserted else {
                throw FleetInventoryError(
                    "device '\(entry.device)' appears twice; each device must be listed once")
            }
        }
        guard !devices.isEmpty else { throw FleetInventoryError("the inventory lists no devices") }
        self.defaults = defaults
        self.devices = devices
        self.rules = rules
    }

    /// Every package path the inventory names (entries, rules, defaults), each once, in order.
    public var packagePaths: [String] {
        var paths: [String] = []
        let all = devices.compactMap(\.package) + rules.map(\.package) + [defaults.package].compactMap { $0 }
        for path in all where !paths.contains(path) { paths.append(path) }
        return paths
    }
}

/// One device of an inventory.
public struct FleetDeviceEntry: Sendable, Equatable {
    /// An address (`AA:BB:CC:DD:EE:FF`) or an advertised name, as the user wrote it; it tags the
    /// device's events and its line in the report.
    public let device: String
    /// `device` read once: an address (either case) or a name. `FleetInventory` refuses text
    /// shaped like an address without being one.
    public let identifier: DeviceIdentifier
    /// The package path; nil: a rule or the defaults choose.
    public var package: String?
    /// The adapter (`hciN`) the device is reached through; nil: the default, or any adapter.
    public var adapter: String?
    /// Update even when the device runs the package's version; nil: the default.
    public var force: Bool?
    /// Run this device as an in-process simulated device.
    public var simulate: FleetSimulationSpec?
    /// What the device needs to be paired; empty: a rule or the defaults say.
    public var security: DeviceSecurity

    public init(
        device: String, package: String? = nil, adapter: String? = nil, force: Bool? = nil,
        simulate: FleetSimulationSpec? = nil, security: DeviceSecurity = DeviceSecurity()
    ) {
        self.device = device
        identifier = DeviceIdentifier(device)
        self.package = package
        self.adapter = adapter
        self.force = force
        self.simulate = simulate
        self.security = security
    }
}

/// The `simulate` object of an inventory entry: the `--sim-*` options without their prefix,
/// as text; the simulator (not the fleet) interprets them.
public struct FleetSimulationSpec: Sendable, Equatable {
    public var kind: String
    public var dfuVersion: String?
    public var firmwareVersion: String?
    /// The application version the Secure bootloader's settings hold (`app_version`).
    public var appVersion: String?
    public var hwVersion: String?
    public var sdId: String?
    public var publicKey: String?
    public var mtu: Int?
    public var faults: [String]
    /// Flash speeds (`page_erase_ms`, `word_write_us`).
    public var pageEraseMs: Int?
    public var wordWriteUs: Int?
    /// `smp-app` settings (`slot_kib`, `smp_buf_size`, `smp_buf_count`, `smp_reassembly`,
    /// `smp_image_check`, `smp_erase_storage`, `image_hash`, `mcuboot_mode`,
    /// `mcuboot_no_downgrade`, `network_core`, `network_core_one_pair`).
    public var slotKib: Int?
    public var smpBufSize: Int?
    public var smpBufCount: Int?
    public var smpReassembly = false
    public var smpImageCheck = false
    public var smpEraseStorage = false
    public var imageHash: String?
    public var mcubootMode: String?
    public var mcubootNoDowngrade = false
    public var networkCore = false
    public var networkCoreOnePair = false
    /// Real time per unit of virtual time its GATT operations also take (`real_time_factor`).
    public var realTimeFactor: Double?

    public init(
        kind: String, dfuVersion: String? = nil, firmwareVersion: String? = nil, hwVersion: String? = nil,
        sdId: String? = nil, publicKey: String? = nil, mtu: Int? = nil, faults: [String] = []
    ) {
        self.kind = kind
        self.dfuVersion = dfuVersion
        self.firmwareVersion = firmwareVersion
        self.hwVersion = hwVersion
        self.sdId = sdId
        self.publicKey = publicKey
        self.mtu = mtu
        self.faults = faults
    }
}

/// An inventory that cannot be used; the message names the file, entry or field and what to fix.
public struct FleetInventoryError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// Whether it refuses a passkey written into the inventory (a data error, not a usage one).
    public var isInlineSecret: Bool

    public init(_ message: String, isInlineSecret: Bool = false) {
        self.message = message
        self.isInlineSecret = isInlineSecret
    }

    public var description: String { message }
}
