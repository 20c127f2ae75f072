import MCUmgr

/// What an SMP device says of its bootloader (OS group bootloader information): its name and,
/// for MCUboot, its mode. Nil fields where the device does not tell: the command is not built in
/// (`CONFIG_MCUMGR_GRP_OS_BOOTLOADER_INFO`, off by default) or the query has no answer.
public struct SMPBootloader: Hashable, Sendable {
    /// `MCUboot` from Zephyr; other names from vendors' hooks.
    public var name: String
    /// MCUboot's mode; nil when not asked (another bootloader) or not answered.
    public var mode: MCUbootMode?

    public init(name: String, mode: MCUbootMode?) {
        self.name = name
        self.mode = mode
    }

    /// The name and the mode as people read them: `MCUboot, swap using move`.
    public var summary: String { [name, mode.map(\.description)].compactMap { $0 }.joined(separator: ", ") }

    /// Why an update cannot be done as `activation` asks on a device in this mode; nil when it
    /// can. A swap mode, −1 and a mode number MCUboot does not define are taken as a swap that
    /// reverts an unconfirmed test, as Nordic's Device Manager does (docs/mcumgr.md, "MCUboot
    /// modes"); overwrite-only copies a tested image for good, so it cannot run one on test; the
    /// other modes need flows this engine does not have, and are refused before anything is sent.
    public func refusal(of activation: DFUOptions.SMPActivation) -> String? {
        guard let mode, mode.isKnown else { return nil }
        switch mode {
        case .swapUsingScratch, .swapUsingMove, .swapUsingOffset:
            return nil
        case .overwriteOnly:
            guard activation == .testOnly else { return nil }
            return "MCUboot runs in overwrite-only mode, which installs a tested image for good: "
                + "it cannot run on test; use --activation test-and-confirm or confirm-only"
        default:
            return "MCUboot runs in \(mode) mode, which dfu-update does not update yet (it updates "
                + "the swap modes and overwrite-only): update it with nRF Connect Device Manager"
        }
    }
}
