import MCUmgr

/// An image as MCUboot and the image group read it from a slot: only bytes that hold a complete
/// image with a correct hash TLV of the device's algorithm count (a partly written slot, or an
/// image hashed otherwise, lists nothing: img_mgmt looks for `IMAGE_TLV_SHA` of `IMAGE_SHA_LEN`).
struct SlotImage: Equatable, Sendable {
    let size: Int
    let hash: [UInt8]
    let version: MCUbootVersion
    let bootable: Bool

    init?(bytes: [UInt8], hash algorithm: MCUbootHashAlgorithm) {
        guard let image = try? MCUbootImage(bytes: bytes, name: "slot"), image.hashAlgorithm == algorithm
        else { return nil }
        size = bytes.count
        hash = image.hash
        version = image.header.version
        bootable = !image.header.flags.contains(.nonBootable)
    }
}

/// The primary and secondary slots of one MCUboot image pair, and the trailer state that decides
/// the next boot. Flash: survives resets (docs/simulator.md, "SMP device"). "Primary" is the slot
/// the image runs from and "secondary" the other one: the same slots in the swap modes and
/// overwrite-only, whichever slot runs in direct-XIP.
struct MCUbootSlots: Sendable {
    /// How MCUboot installs an image (its mode, for this pair).
    enum Installation: Sendable {
        /// Swaps the slots' contents; an unconfirmed test is swapped back.
        case swap
        /// Copies the image in for good (overwrite-only, and the nRF5340's network core).
        case overwrite
        /// Runs from either slot, the higher version; no test, no revert (`MCUBOOT_DIRECT_XIP`).
        case directXIP
        /// Runs the tested image from its slot once, and erases it if it was not confirmed.
        case directXIPWithRevert
        /// nRF Connect SDK Bare Metal: slot 1 holds a firmware loader that writes the application
        /// into slot 0 in place (`BOOT_FIRMWARE_LOADER`); nothing to test, confirm or revert.
        case firmwareLoader
    }

    /// What the secondary slot's trailer asks MCUboot to do.
    enum Request: Sendable {
        case none
        /// Swap for one boot; the image must confirm itself or it is swapped back.
        case test
        /// Swap for good.
        case permanent
    }

    /// What MCUboot does at the next boot (Zephyr `img_mgmt_get_next_boot_slot`).
    enum NextBoot: Equatable, Sendable {
        /// Boots the primary slot again.
        case none
        case test
        case permanent
        /// The running image was swapped in for a test and is not confirmed: swaps back.
        case revert
    }

    /// The running image.
    private(set) var primary: SlotImage
    /// The secondary slot's bytes (slot 1): empty when erased.
    private(set) var secondaryBytes: [UInt8] = []
    private(set) var secondary: SlotImage?
    private(set) var request = Request.none
    /// The primary trailer's `image_ok`: false while an image swapped in for a test runs
    /// unconfirmed.
    private(set) var primaryConfirmed = true
    /// The primary slot's bytes: the file that was uploaded (or the factory image).
    private(set) var primaryBytes: [UInt8]
    /// The slot number the image runs from: 0, or 1 after direct-XIP booted the other slot.
    private(set) var runningSlot = 0
    /// With a firmware loader: slot 0 is being (or was partly) overwritten, so no application
    /// boots; the "secondary" bytes are what has been written into slot 0 so far.
    private(set) var applicationLost = false
    /// With a firmware loader: the loader's own image in slot 1 (a 4 KiB stand-in of 1.0.0).
    let loader: SlotImage?

    /// The image hash this device's MCUboot and image group use.
    let hashAlgorithm: MCUbootHashAlgorithm
    let installation: Installation
    /// Downgrade prevention: an image older than the running one is erased, not installed.
    let refusesDowngrade: Bool
    /// MCUboot's image number for this pair.
    let image: Int
    /// The nRF5340's network core (image 1 of a simultaneous update): its primary slot is in the
    /// network core's flash, which the application cannot read, so it is never listed; an image
    /// is copied there through PCD, overwriting, with no copy to revert to.
    let isNetworkCore: Bool

    init(
        factoryImage: [UInt8], hash algorithm: MCUbootHashAlgorithm, installation: Installation = .swap,
        refusesDowngrade: Bool = false, image: Int = 0, isNetworkCore: Bool = false
    ) {
        hashAlgorithm = algorithm
        self.installation = isNetworkCore ? .overwrite : installation
        self.refusesDowngrade = refusesDowngrade
        self.image = image
        self.isNetworkCore = isNetworkCore
        loader =
            self.installation == .firmwareLoader
            ? SlotImage(
                bytes: SimulatedMCUbootImage.make(
                    version: MCUbootVersion(major: 1, minor: 0, revision: 0), bodySize: 4096, seed: 0xFC,
                    hash: algorithm), hash: algorithm) : nil
        primaryBytes = factoryImage
        primary = SlotImage(bytes: factoryImage, hash: algorithm)!
    }

    /// Overwrite-only (`MCUBOOT_OVERWRITE_ONLY`): a marked image, tested or confirmed, is copied
    /// into the primary slot for good and the secondary slot erased; nothing is ever reverted.
    var overwrites: Bool { installation == .overwrite }

    /// The slot number of the slot not running.
    var otherSlot: Int { 1 - runningSlot }

    var nextBoot: NextBoot {
        // direct-XIP boots the valid image of the higher version, whatever the trailers say
        if installation == .directXIP {
            guard let secondary, secondary.bootable, secondary.version > primary.version else { return .none }
            return .permanent
        }
        return switch request {
        case .test: .test
        case .permanent: .permanent
        case .none: primaryConfirmed ? .none : .revert
        }
    }

    /// Whether the image group refuses to upload into (or erase) the secondary slot: only while
    /// it holds the image a revert needs (Zephyr `img_mgmt_slot_in_use` with
    /// `CONFIG_MCUMGR_GRP_IMG_ALLOW_ERASE_PENDING`, on by default).
    var secondaryInUse: Bool { nextBoot == .revert }

    /// The slot (0 or 1) holding an image with this hash, as the image group finds it (not the
    /// network core's primary slot, which it cannot read).
    func slot(holding hash: [UInt8]) -> Int? {
        if !isNetworkCore, primary.hash == hash { return 0 }
        if secondary?.hash == hash { return 1 }
        return nil
    }

    // MARK: Flash operations of the image group

    /// Erases the secondary slot, its trailer (and so a pending request) included.
    mutating func eraseSecondary() {
        secondaryBytes = []
        secondary = nil
        request = .none
    }

    /// Writes upload data at `offset`, which is where the written bytes end; a firmware loader
    /// writes over the application from the first chunk on.
    mutating func writeSecondary(_ data: [UInt8], at offset: Int) {
        precondition(offset == secondaryBytes.count, "uploads write in order")
        if installation == .firmwareLoader { applicationLost = true }
        secondaryBytes += data
    }

    /// Reads the secondary slot's image after an upload completed; a firmware loader's upload is
    /// the new application in slot 0.
    mutating func readSecondary() {
        let image = SlotImage(bytes: secondaryBytes, hash: hashAlgorithm)
        guard installation == .firmwareLoader else {
            secondary = image
            return
        }
        if let image {
            primary = image
            primaryBytes = secondaryBytes
            applicationLost = false
        }
        secondaryBytes = []
    }

    /// Marks the secondary slot's image for a test or for good (`boot_request_upgrade`).
    mutating func requestUpgrade(permanent: Bool) { request = permanent ? .permanent : .test }

    /// Forgets the secondary slot's request, keeping its image: what MCUboot leaves when it skips
    /// an update.
    mutating func dropRequest() { request = .none }

    /// Sets the primary slot's `image_ok` (`boot_write_img_confirmed`).
    mutating func confirmPrimary() { primaryConfirmed = true }

    // MARK: MCUboot

    /// What MCUboot does at a reset: swaps as the trailers ask. `testedImageFails` models an
    /// image that resets before confirming itself, so MCUboot swaps it out again at once.
    /// Returns the bytes copied (each swap erases and writes both images once).
    mutating func boot(testedImageFails: Bool) -> Int {
        if overwrites, request != .none { return overwrite() }
        switch nextBoot {
        case .none:
            return 0
        case .test:
            var copied = swap()
            primaryConfirmed = false
            if testedImageFails {
                copied += revert()
            }
            return copied
        case .permanent:
            let copied = swap()
            primaryConfirmed = true
            return copied
        case .revert:
            return revert()
        }
    }

    /// Goes back to the image that ran before an unconfirmed test; direct-XIP with revert erases
    /// the image that failed (MCUboot `BOOT_DIRECT_XIP_REVERT`).
    private mutating func revert() -> Int {
        let copied = swap()
        primaryConfirmed = true
        if installation == .directXIPWithRevert { eraseSecondary() }
        return copied
    }

    /// Copies the secondary image over the primary one and erases the secondary slot (MCUboot
    /// `boot_copy_image`); an older image under downgrade prevention is only erased
    /// (`boot_validate_slot`). Returns the bytes copied.
    private mutating func overwrite() -> Int {
        defer { eraseSecondary() }
        guard let incoming = secondary, !refusesDowngrade || incoming.version >= primary.version else {
            return 0
        }
        primaryBytes = secondaryBytes
        primary = incoming
        primaryConfirmed = true
        return primaryBytes.count
    }

    /// Exchanges the slots' roles: their contents in the swap modes, the slot booted in
    /// direct-XIP (which copies nothing). Returns the bytes copied.
    private mutating func swap() -> Int {
        guard let incoming = secondary else { return 0 }
        let inPlace = installation == .directXIP || installation == .directXIPWithRevert
        let copied = inPlace ? 0 : primaryBytes.count + secondaryBytes.count
        if inPlace { runningSlot = otherSlot }
        (primaryBytes, secondaryBytes) = (secondaryBytes, primaryBytes)
        secondary = primary
        primary = incoming
        request = .none
        return copied
    }
}
