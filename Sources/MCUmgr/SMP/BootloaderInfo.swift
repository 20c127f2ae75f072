/// The mode MCUboot was built in, as the OS group's bootloader information answers it for
/// `query: "mode"` (MCUboot `boot_status.h`, `enum mcuboot_mode`; Zephyr `os_mgmt.c`). The value
/// is kept as sent: Zephyr maps only some of its Kconfig choices (a device in swap using offset,
/// the new name of swap using move, or RAM load may answer −1), so an updater treats −1 and any
/// value it does not know as a swap that reverts an unconfirmed test, as Nordic's Device Manager
/// does (docs/mcumgr.md, "Bootloader information").
public struct MCUbootMode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// −1: the application could not tell.
    public static let unknown = MCUbootMode(rawValue: -1)
    /// One slot; updates only through the bootloader's serial recovery.
    public static let singleSlot = MCUbootMode(rawValue: 0)
    public static let swapUsingScratch = MCUbootMode(rawValue: 1)
    /// Overwrite-only (`UPGRADE_ONLY`): an image is copied in for good, a test cannot be reverted.
    public static let overwriteOnly = MCUbootMode(rawValue: 2)
    public static let swapUsingMove = MCUbootMode(rawValue: 3)
    /// Runs from either slot, the highest version; no test and no revert.
    public static let directXIP = MCUbootMode(rawValue: 4)
    public static let directXIPWithRevert = MCUbootMode(rawValue: 5)
    public static let ramLoad = MCUbootMode(rawValue: 6)
    /// Slot 0 the application, slot 1 a firmware loader (nRF Connect SDK Bare Metal).
    public static let firmwareLoader = MCUbootMode(rawValue: 7)
    public static let singleSlotRAMLoad = MCUbootMode(rawValue: 8)
    public static let swapUsingOffset = MCUbootMode(rawValue: 9)

    private static let names: [Int: String] = [
        -1: "unknown", 0: "single slot", 1: "swap using scratch", 2: "overwrite-only", 3: "swap using move",
        4: "direct-XIP", 5: "direct-XIP with revert", 6: "RAM load", 7: "firmware loader",
        8: "single slot RAM load", 9: "swap using offset",
    ]

    /// Whether this is one of MCUboot's modes as of `boot_status.h` (−1 is not).
    public var isKnown: Bool { rawValue >= 0 && Self.names[rawValue] != nil }

    /// The mode as people name it; a value MCUboot does not define as `mode N`.
    public var description: String { Self.names[rawValue] ?? "mode \(rawValue)" }

    /// The mode's name with dashes, as options and inventories write it: `swap-using-move`,
    /// `direct-xip`, `unknown` for −1.
    public var name: String { description.replacingOccurrences(of: " ", with: "-").lowercased() }

    /// A mode from its ``name`` or its number; nil for anything else.
    public init?(name: String) {
        if let number = Int(name) {
            self.init(rawValue: number)
            return
        }
        guard let mode = (-1...9).map(MCUbootMode.init).first(where: { $0.name == name }) else { return nil }
        self = mode
    }
}

/// The answers to ``SMPRequest/bootloaderInfo(query:)`` (Zephyr `os_mgmt_bootloader_info()`,
/// compiled in with `CONFIG_MCUMGR_GRP_OS_BOOTLOADER_INFO`): the bootloader's name without a
/// query, its mode for `query: "mode"`.
public enum BootloaderInfo {
    /// The query that asks for the mode.
    public static let modeQuery = "mode"

    /// `{bootloader}`: `"MCUboot"` from Zephyr, other names from vendors' hooks.
    public static func name(_ response: SMPResponse) throws(SMPResponseError) -> String {
        try response.check(answers: .bootloaderInfo(query: nil))
        guard let name = response.body["bootloader"]?.textValue else {
            throw .malformed("no bootloader text")
        }
        return name
    }

    /// `{mode, no-downgrade?}`: the mode, and whether MCUboot refuses an older image
    /// (`CONFIG_MCUBOOT_BOOTLOADER_NO_DOWNGRADE`; the key is sent only when true).
    public static func mode(_ response: SMPResponse) throws(SMPResponseError) -> (
        mode: MCUbootMode, noDowngrade: Bool
    ) {
        try response.check(answers: .bootloaderInfo(query: modeQuery))
        guard let mode = response.body["mode"]?.integer(as: Int32.self) else {
            throw .malformed("mode is not a 32-bit integer")
        }
        let noDowngrade = response.body["no-downgrade"]?.boolValue ?? false
        return (MCUbootMode(rawValue: Int(mode)), noDowngrade)
    }
}
