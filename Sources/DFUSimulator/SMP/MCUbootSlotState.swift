import MCUmgr

/// One slot of a simulated SMP device as its image list shows it (Zephyr `img_mgmt_state.c`);
/// also reported in `DeviceSnapshot.slots` and by `dfu-sim`.
public struct MCUbootSlotState: Equatable, Sendable {
    /// MCUboot's image number: 0 the application, 1 the nRF5340's network core.
    public var image: Int
    /// 0 (primary, the running image) or 1 (secondary).
    public var slot: Int
    /// `major.minor.revision`, with `.build` when it is not 0.
    public var version: String
    /// The image hash (SHA-256 TLV).
    public var hash: [UInt8]
    /// Bytes of the file in the slot.
    public var size: Int
    public var bootable: Bool
    public var pending: Bool
    public var confirmed: Bool
    public var active: Bool
    public var permanent: Bool

    init(
        image number: Int, slot: Int, holding image: SlotImage, pending: Bool, confirmed: Bool, active: Bool,
        permanent: Bool
    ) {
        self.image = number
        self.slot = slot
        version = image.version.imageListDescription
        hash = image.hash
        size = image.size
        bootable = image.bootable
        self.pending = pending
        self.confirmed = confirmed
        self.active = active
        self.permanent = permanent
    }

    /// The image list entry; `numbered` when the device has more than one updatable image.
    func listEntry(numbered: Bool) -> CBORValue {
        var entry: [CBORValue: CBORValue] = [
            "slot": CBORValue(slot), "version": .text(version), "hash": .bytes(hash),
            "bootable": .bool(bootable),
            "pending": .bool(pending), "confirmed": .bool(confirmed), "active": .bool(active),
            "permanent": .bool(permanent),
        ]
        if numbered { entry["image"] = CBORValue(image) }
        return .map(entry)
    }
}
