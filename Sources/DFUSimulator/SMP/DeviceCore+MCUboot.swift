import MCUmgr

extension DeviceCore {
    /// The SMP device leaves the factory with a 4 KiB image of the configured version in its
    /// primary slot, confirmed, and an erased secondary slot.
    mutating func installFactoryMCUbootImage() {
        let text = configuration.firmwareVersion ?? SimulatedDeviceConfiguration.defaultFirmwareVersion
        let version = MCUbootVersion(text) ?? MCUbootVersion(major: 1, minor: 0, revision: 0)
        let hash = configuration.smp.imageHash
        let slots = MCUbootSlots(
            factoryImage: SimulatedMCUbootImage.make(
                version: version, bodySize: 4096, seed: 0xFA, hash: hash),
            hash: hash, overwrites: configuration.smp.bootloaderMode == .overwriteOnly,
            refusesDowngrade: configuration.smp.refusesDowngrade)
        mcuboot = slots
        firmwareRevision = slots.primary.version.imageListDescription
    }

    /// MCUboot at a reset: swaps as the slots' trailers ask (`revert-after-test` makes a tested
    /// image fail to boot), counting a new image swapped in as an activation. Returns the time it takes beyond a plain boot: each swap erases and
    /// writes both images, and a failing image boots once before its reset.
    mutating func bootMCUboot() -> Nanoseconds {
        guard var slots = mcuboot else { return 0 }
        let failing =
            configuration.faults.contains(.revertAfterTest) && slots.nextBoot == .test && !slots.overwrites
        // a new image booted (on test or for good) is an activation; a revert or an image
        // MCUboot erases instead of installing is not
        let installing = slots.nextBoot == .test || slots.nextBoot == .permanent
        let running = slots.primary.hash
        let copied = slots.boot(testedImageFails: failing)
        if installing, slots.primary.hash != running { banks.countActivation() }
        mcuboot = slots
        firmwareRevision = slots.primary.version.imageListDescription
        let swapTime = timing.activationTime(bytes: copied).nanoseconds
        return swapTime + (failing ? timing.bootTime.nanoseconds : 0)
    }
}
