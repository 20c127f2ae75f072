/// What a simulated device runs when the simulation starts (`--simulate KIND`).
public enum SimulatedDeviceKind: String, CaseIterable, Hashable, Sendable {
    /// A Secure DFU bootloader (SDK 15–17) waiting for an image, entered without bond data.
    case secure
    /// An application with buttonless DFU without bonds (0003); its bootloader comes up at
    /// address + 1.
    case secureApp = "secure-app"
    /// An application with buttonless DFU with bonds (0004); its bootloader keeps the address.
    case secureAppBonded = "secure-app-bonded"
    /// A Legacy DFU bootloader (SDK 7–11) waiting for an image.
    case legacy
    /// An application with the Legacy DFU service (DFU version 0.1); it hands its peer data to
    /// the bootloader, which keeps the address.
    case legacyApp = "legacy-app"
    /// A Zephyr application booted by MCUboot, updated through MCUmgr's SMP service.
    case smpApp = "smp-app"

    /// Whether the device speaks Legacy DFU.
    public var isLegacy: Bool { self == .legacy || self == .legacyApp }

    /// Whether the device starts in its bootloader rather than in an application.
    public var startsInBootloader: Bool { self == .secure || self == .legacy }

    /// The kind names, as the CLI and fleet inventories spell them.
    public static var names: [String] { allCases.map(\.rawValue) }
}
