import MCUmgr

/// The image group's state commands on one image's slots (Zephyr `img_mgmt_state.c`). Here slot
/// 0 is the primary, running slot and 1 the other; the list numbers them as the flash does.
extension MCUbootSlots {
    /// The listed slots in the flash's order; a slot without a complete, valid image is left
    /// out, and so is the network core's primary slot. The running slot is active, and confirmed
    /// unless the next boot reverts; the other is pending for a test, pending and permanent for
    /// a permanent swap (or, in direct-XIP, when its version is higher), confirmed when a revert
    /// is due.
    var states: [MCUbootSlotState] {
        if let loader { return loaderStates(loader) }
        let next = nextBoot
        var states: [MCUbootSlotState] = []
        if !isNetworkCore {
            states.append(
                MCUbootSlotState(
                    image: image, slot: runningSlot, holding: primary, pending: false,
                    confirmed: next != .revert,
                    active: true, permanent: false))
        }
        if let secondary {
            states.append(
                MCUbootSlotState(
                    image: image, slot: otherSlot, holding: secondary,
                    pending: next == .test || next == .permanent,
                    confirmed: next == .revert, active: false, permanent: next == .permanent))
        }
        return states.sorted { $0.slot < $1.slot }
    }

    /// As a firmware loader lists them (sdk-nrf-bm `img_mgmt_state.c`): slot 0 the application,
    /// confirmed and not active, unless partly written; slot 1 the loader, active.
    private func loaderStates(_ loader: SlotImage) -> [MCUbootSlotState] {
        var states = [
            MCUbootSlotState(
                image: image, slot: 1, holding: loader, pending: false, confirmed: false, active: true,
                permanent: false)
        ]
        if !applicationLost {
            states.insert(
                MCUbootSlotState(
                    image: image, slot: 0, holding: primary, pending: false, confirmed: true, active: false,
                    permanent: false), at: 0)
        }
        return states
    }

    /// A state write: `confirm` false marks `slot` for a test, true confirms it
    /// (`img_mgmt_set_next_boot_slot`). Nil on success.
    mutating func setNextBoot(slot: Int, confirm: Bool) -> ImageManagementReturnCode? {
        if !confirm && slot == 0 { return .imageSettingTestToActiveDenied }
        if installation == .directXIP {
            // the higher version boots next already: a test is refused, a confirmation changes nothing
            return confirm ? nil : .imageAlreadyPending
        }
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
