import MCUmgr

extension DeviceCore {
    /// The SMP device leaves the factory with a 4 KiB image of the configured version in its
    /// primary slot, confirmed, and an erased secondary slot; with a network core (either setup),
    /// that core runs a 4 KiB image of version 1.0.0.
    mutating func installFactoryMCUbootImage() {
        let text = configuration.firmwareVersion ?? SimulatedDeviceConfiguration.defaultFirmwareVersion
        let version = MCUbootVersion(text) ?? MCUbootVersion(major: 1, minor: 0, revision: 0)
        let smp = configuration.smp
        // a direct-XIP device runs an image linked for slot 0, a RAM-load device one linked for RAM
        let ramLoad = smp.bootloaderMode == .ramLoad
        let inPlace = !ramLoad && (smp.installation == .directXIP || smp.installation == .directXIPWithRevert)
        var images = [
            MCUbootSlots(
                factoryImage: SimulatedMCUbootImage.make(
                    version: version, bodySize: 4096, seed: 0xFA,
                    flags: ramLoad
                        ? MCUbootHeader.Flags.ramLoad.rawValue
                        : inPlace ? MCUbootHeader.Flags.romFixed.rawValue : 0,
                    loadAddress: inPlace ? smp.slotAddress(0) : 0, hash: smp.imageHash),
                hash: smp.imageHash, installation: smp.installation, refusesDowngrade: smp.refusesDowngrade)
        ]
        if smp.networkCore {
            images.append(
                MCUbootSlots(
                    factoryImage: SimulatedMCUbootImage.make(
                        version: MCUbootVersion(major: 1, minor: 0, revision: 0), bodySize: 4096, seed: 0xFB,
                        hash: smp.imageHash),
                    hash: smp.imageHash, image: 1, isNetworkCore: true))
        }
        let networkCoreImage = SimulatedMCUbootImage.make(
            version: MCUbootVersion(major: 1, minor: 0, revision: 0), bodySize: 4096, seed: 0xFB,
            resetVector: OnePairNetworkCore.flash.lowerBound + 0x101, hash: smp.imageHash)
        let flash = MCUbootFlash(
            images: images, onePair: smp.networkCoreOnePair,
            networkCoreHash: smp.networkCoreOnePair == nil
                ? nil : SlotImage(bytes: networkCoreImage, hash: smp.imageHash)?.hash)
        mcuboot = flash
        firmwareRevision = flash.application.primary.version.imageListDescription
    }

    /// MCUboot at a reset: installs as the slots' trailers ask (`revert-after-test` makes a
    /// tested application fail to boot), counting each new image booted as an activation (a
    /// revert, or an image MCUboot erases instead of installing, is not). Returns the time it
    /// takes beyond a plain boot: each swap erases and writes both images, an overwrite the new
    /// one, and a failing image boots once before its reset.
    mutating func bootMCUboot() -> Nanoseconds {
        guard var flash = mcuboot else { return 0 }
        let application = flash.application
        let failing =
            configuration.faults.contains(.revertAfterTest) && application.nextBoot == .test
            && !application.overwrites
        let (copied, installed) = flash.boot(testedImageFails: failing)
        for _ in 0..<installed { banks.countActivation() }
        mcuboot = flash
        firmwareRevision = flash.application.primary.version.imageListDescription
        let swapTime = timing.activationTime(bytes: copied).nanoseconds
        return swapTime + (failing ? timing.bootTime.nanoseconds : 0)
    }
}
