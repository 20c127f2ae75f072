import MCUmgr

/// The image group's state commands on the slots (Zephyr `img_mgmt_state.c`, single image,
/// MCUboot swap mode; the running image is always in slot 0).
extension MCUbootSlots {
    /// The state read answer: `{images: [...], splitStatus: 0}`, slots in order, a slot without a
    /// valid image left out; `image` is not sent (one updatable image).
    var imageList: [CBORValue: CBORValue] {
        let next = nextBoot
        var images: [CBORValue] = [
            Self.entry(slot: 0, primary, pending: false, confirmed: next != .revert, active: true, permanent: false)
        ]
        if let secondary {
            images.append(
                Self.entry(
                    slot: 1, secondary, pending: next == .test || next == .permanent, confirmed: next == .revert,
                    active: false, permanent: next == .permanent))
        }
        return ["images": .array(images), "splitStatus": 0]
    }

    private static func entry(
        slot: Int, _ image: SlotImage, pending: Bool, confirmed: Bool, active: Bool, permanent: Bool
    ) -> CBORValue {
        [
            "slot": CBORValue(slot), "version": .text(image.version.imageListDescription), "hash": .bytes(image.hash),
            "bootable": .bool(image.bootable), "pending": .bool(pending), "confirmed": .bool(confirmed),
            "active": .bool(active), "permanent": .bool(permanent),
        ]
    }

    /// A state write: `confirm` false marks `slot` for a test, true confirms it
    /// (`img_mgmt_set_next_boot_slot`). Nil on success.
    mutating func setNextBoot(slot: Int, confirm: Bool) -> ImageManagementReturnCode? {
        if !confirm && slot == 0 { return .imageSettingTestToActiveDenied }
        switch nextBoot {
        case .test:
            // Testing the slot already under test changes nothing; anything else is refused.
            return !confirm && slot == 1 ? nil : .imageAlreadyPending
        case .none, .permanent:
            let nextSlot = nextBoot == .permanent ? 1 : 0
            if confirm && slot == nextSlot { return nil }
            if (slot == 0 && nextSlot != 0) || (!confirm && slot != 0 && slot == nextSlot) {
                return .imageAlreadyPending
            }
        case .revert:
            if confirm && slot == 1 { return nil }
            if !confirm { return .imageAlreadyPending }
        }
        if slot == 0 {
            confirmPrimary()
        } else {
            requestUpgrade(permanent: confirm)
        }
        return nil
    }
}
