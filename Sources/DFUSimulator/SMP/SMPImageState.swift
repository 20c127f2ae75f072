import MCUmgr

/// The image group's state commands on one image's slots (Zephyr `img_mgmt_state.c`; the
/// running image is always in slot 0).
extension MCUbootSlots {
    /// The listed slots, slot 0 then slot 1; a slot without a complete, valid image is left out,
    /// and so is the network core's primary slot. Slot 0 is active, and confirmed unless the
    /// next boot reverts; slot 1 is pending for a test, pending and permanent for a permanent
    /// swap, confirmed when a revert is due.
    var states: [MCUbootSlotState] {
        let next = nextBoot
        var states: [MCUbootSlotState] = []
        if !isNetworkCore {
            states.append(
                MCUbootSlotState(
                    image: image, slot: 0, holding: primary, pending: false, confirmed: next != .revert,
                    active: true, permanent: false))
        }
        if let secondary {
            states.append(
                MCUbootSlotState(
                    image: image, slot: 1, holding: secondary, pending: next == .test || next == .permanent,
                    confirmed: next == .revert, active: false, permanent: next == .permanent))
        }
        return states
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
