import MCUmgr

/// What an SMP device says of its bootloader (OS group bootloader information): its name and,
/// for MCUboot, its mode. Nil fields where the device does not tell: the command is not built in
/// (`CONFIG_MCUMGR_GRP_OS_BOOTLOADER_INFO`, off by default) or the query has no answer.
public struct SMPBootloader: Hashable, Sendable {
    /// `MCUboot` from Zephyr; other names from vendors' hooks.
    public var name: String
    /// MCUboot's mode; nil when not asked (another bootloader) or not answered.
    public var mode: MCUbootMode?
    /// Whether MCUboot refuses an image older than the one it runs (`no-downgrade`).
    public var noDowngrade: Bool

    public init(name: String, mode: MCUbootMode?, noDowngrade: Bool = false) {
        self.name = name
        self.mode = mode
        self.noDowngrade = noDowngrade
    }

    /// What the device's answers to bootloader information tell: nil without a name (the
    /// command is not built in, or the answer was lost); the mode only from MCUboot.
    init?(nameAnswer: SMPResponse?, modeAnswer: SMPResponse?) {
        guard let nameAnswer, let name = try? BootloaderInfo.name(nameAnswer) else { return nil }
        let told = name == "MCUboot" ? modeAnswer.flatMap { try? BootloaderInfo.mode($0) } : nil
        self.init(name: name, mode: told?.mode, noDowngrade: told?.noDowngrade ?? false)
    }

    /// The name and the mode as people read them: `MCUboot, swap using move`.
    public var summary: String { [name, mode.map(\.description)].compactMap { $0 }.joined(separator: ", ") }

    /// Why an update cannot be done as `activation` asks on a device in this mode; nil when it
    /// can. A swap mode, −1 and a mode number MCUboot does not define are taken as a swap that
    /// reverts an unconfirmed test, as Nordic's Device Manager does (docs/mcumgr.md, "MCUboot
    /// modes"); overwrite-only copies a tested image for good, so it cannot run one on test, nor
    /// can direct-XIP without revert and RAM load, which boot the higher version; the other modes
    /// need flows this engine does not have, and are refused before anything is sent.
    public func refusal(of activation: DFUOptions.SMP.Activation) -> String? {
        guard let mode, mode.isKnown else { return nil }
        switch mode {
        case .swapUsingScratch, .swapUsingMove, .swapUsingOffset, .directXIPWithRevert:
            return nil
        case .directXIP, .ramLoad:
            guard activation == .testOnly else { return nil }
            return "MCUboot runs in \(mode) mode\(mode == .directXIP ? " without revert" : ""), which boots "
                + "the higher version for good: it cannot run an image on test; use --activation "
                + "test-and-confirm or confirm-only"
        case .overwriteOnly:
            guard activation == .testOnly else { return nil }
            return "MCUboot runs in overwrite-only mode, which installs a tested image for good: "
                + "it cannot run on test; use --activation test-and-confirm or confirm-only"
        case .singleSlot, .singleSlotRAMLoad:
            return "MCUboot runs in \(mode) mode: the device has no second slot to take an update "
                + "over Bluetooth; update it through MCUboot's serial recovery"
        case .firmwareLoader:
            guard activation == .testOnly || activation == .noReset else { return nil }
            return "MCUboot runs in \(mode) mode: its loader writes the new image over the application "
                + "for good and resets into it, so there is nothing to test or to leave waiting; use "
                + "--activation test-and-confirm or confirm-only"
        default:
            return "MCUboot runs in \(mode) mode, which dfu-update does not update yet (it updates "
                + "the swap modes, overwrite-only, direct-XIP and RAM load): update it with nRF Connect Device Manager"
        }
    }

    /// Why a device in this mode came back on its old image, for a failed check after the reset;
    /// nil where it is a revert of an image that did not confirm itself.
    var whyNotInstalled: String? {
        guard mode == .overwriteOnly else { return nil }
        return "MCUboot did not install the new image: in overwrite-only mode it erases an image "
            + "that fails its checks" + (noDowngrade ? " or is older than the running one" : "")
    }
}
