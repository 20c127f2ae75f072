import MCUmgr

/// What makes a simulated Zephyr application with MCUmgr (`--simulate smp-app`) differ from
/// another: its flash partitions and its SMP transport's build settings (docs/simulator.md, "SMP
/// device"). Flash speeds come from `SimulationTiming` (`pageErase`, `wordWrite`).
public struct SMPDeviceConfiguration: Hashable, Sendable {
    /// Bytes in each MCUboot slot: 0x76000 (472 KiB), the nRF52840 DK's devicetree partitions.
    public var slotSize = 0x76000
    /// `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE`: the largest frame the device takes (Zephyr's
    /// default 384; nRF Connect SDK builds tuned for fast DFU use 2475).
    public var bufferSize = 384
    /// `CONFIG_MCUMGR_TRANSPORT_NETBUF_COUNT`: buffers shared by queued requests and the answer
    /// being built (Zephyr's default 4).
    public var bufferCount = 4
    /// `CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY`: a frame may span several writes (off by default
    /// in Zephyr; on in NCS's fast DFU configuration).
    public var reassembly = false
    /// `CONFIG_IMG_ENABLE_IMAGE_CHECK`: the last upload chunk's answer carries `match` (off by
    /// default in Zephyr).
    public var imageCheck = false
    /// The image hash MCUboot checks and the image group lists: SHA-512 on nRF54L and nRF54H
    /// (`CONFIG_MCUBOOT_BOOTLOADER_USES_SHA512`), else SHA-256. An image without a hash TLV of
    /// this algorithm is left out of the image list and never boots.
    public var imageHash = MCUbootHashAlgorithm.sha256
    /// What the OS group's bootloader information answers for `query: "mode"`; nil when the
    /// command is not built in (`CONFIG_MCUMGR_GRP_OS_BOOTLOADER_INFO`, off by default: answered
    /// `MGMT_ERR_ENOTSUP`). The simulated MCUboot swaps, or overwrites in overwrite-only mode;
    /// −1 is what a Zephyr application answers for a mode os_mgmt does not map.
    public var bootloaderMode: MCUbootMode?
    /// The modes the simulated MCUboot can run in, and −1.
    public static let simulatedModes: [MCUbootMode] = [
        .swapUsingScratch, .swapUsingMove, .swapUsingOffset, .overwriteOnly, .directXIP, .directXIPWithRevert,
        .ramLoad, .firmwareLoader, .unknown,
    ]
    /// The name nRF Connect SDK Bare Metal's firmware loader advertises unless told another
    /// (`CONFIG_APP_FIRMWARE_LOADER_BLE_DEVICE_NAME`).
    public static let firmwareLoaderName = "nRF_BM_MCUmgr"
    /// Where slot 0 starts in flash: 0xC000, after MCUboot, as on the nRF52840 DK; slot `n`
    /// follows at `n` slot sizes. A direct-XIP image is linked for one of these addresses.
    public static let firstSlotAddress: UInt32 = 0xC000

    /// The flash address of slot `number` (image `i` has slots `2i` and `2i + 1`).
    public func slotAddress(_ number: Int) -> UInt32 { Self.firstSlotAddress + UInt32(number * slotSize) }

    /// How the simulated MCUboot installs the application's images in the configured mode.
    var installation: MCUbootSlots.Installation {
        switch bootloaderMode {
        case .overwriteOnly?: .overwrite
        // RAM load selects as direct-XIP does (the higher valid version, from either slot); that
        // it copies the image into RAM first changes nothing the image group shows (unverified:
        // Zephyr's img_mgmt has no RAM-load branch, so its list may differ)
        case .directXIP?, .ramLoad?: .directXIP
        case .directXIPWithRevert?: .directXIPWithRevert
        case .firmwareLoader?: .firmwareLoader
        default: .swap
        }
    }
    /// MCUboot's downgrade prevention (`MCUBOOT_DOWNGRADE_PREVENTION`): an image older than the
    /// running one is erased instead of installed, and bootloader information says `no-downgrade`.
    public var refusesDowngrade = false
    /// An nRF5340 built for simultaneous updates of both cores
    /// (`SB_CONFIG_MCUBOOT_NRF53_MULTI_IMAGE_UPDATE`): image 1 is the network core, written into
    /// its own secondary slot and copied to the network core by MCUboot (PCD) at the reset. nRF
    /// Connect SDK requires overwrite-only for it.
    public var networkCore = false
    /// An nRF5340 with one image pair (nRF Connect SDK's default): the network core's image is
    /// uploaded into image 0's secondary slot, and MCUboot tells it from an application image by
    /// its reset vector (in the network core's flash) and copies it over through PCD at the reset
    /// (sdk-mcuboot `loader.c`). nil: no network core, or `networkCore`'s simultaneous setup.
    public var networkCoreOnePair: OnePairNetworkCore?
    /// Zephyr's basic group with erase storage (`CONFIG_MCUMGR_GRP_ZBASIC`, off by default; NCS's
    /// OTA DFU sample turns it on): without it the command is answered `MGMT_ERR_ENOTSUP`.
    public var eraseStorage = false
    /// Bytes of the storage partition erase storage erases: 32 KiB, the nRF52840 DK's
    /// `storage_partition`.
    public var storageSize = 0x8000
    /// nRF Connect SDK Bare Metal's firmware loader: bytes of its image buffer
    /// (`CONFIG_BM_MCUMGR_GRP_IMG_BUFFER_SZ`: 57344, 131072 on nRF54L15/L10), a ring that upload
    /// chunks go into and flash writes drain (sdk-nrf-bm `bm_img_mgmt.c`). A chunk is answered
    /// as soon as it is in the ring; one that does not fit is answered success with the offset
    /// unchanged ("Storage busy. Retry sending the same data chunk.", `img_mgmt.c`). nil: the
    /// loader writes each chunk before it answers, as Zephyr's image group does.
    public var loaderImageBuffer: Int?
    /// `CONFIG_MCUMGR_GRP_OS_RESET_MS`: from the reset answer to the reboot.
    public var resetDelay: Duration = .milliseconds(250)

    public init() {}

    /// Checks the values a user can get wrong; throws with a message naming the option.
    func validate() throws(SimulatorConfigurationError) {
        guard (4096...0x10_0000 * 16).contains(slotSize) else {
            throw SimulatorConfigurationError("--sim-slot-kib \(slotSize / 1024) is outside 4 … 16384")
        }
        guard (64...65_535).contains(bufferSize) else {
            throw SimulatorConfigurationError("--sim-smp-buf-size \(bufferSize) is outside 64…65535")
        }
        guard (2...64).contains(bufferCount) else {
            throw SimulatorConfigurationError(
                "--sim-smp-buf-count \(bufferCount) is outside 2…64 (one buffer holds the answer being built)"
            )
        }
        if loaderImageBuffer != nil, bootloaderMode != .firmwareLoader {
            throw SimulatorConfigurationError(
                "--sim-loader-buffer-kib needs --sim-mcuboot-mode firmware-loader: only the Bare Metal firmware loader writes through an image buffer"
            )
        }
        if let loaderImageBuffer, loaderImageBuffer < bufferSize {
            throw SimulatorConfigurationError(
                "--sim-loader-buffer-kib \(loaderImageBuffer / 1024): the loader's image buffer holds at least one SMP buffer (\(bufferSize) bytes)"
            )
        }
        if networkCore, networkCoreOnePair != nil {
            throw SimulatorConfigurationError(
                "--sim-network-core and --sim-network-core-one-pair exclude each other: an nRF5340 is built for one of the two setups"
            )
        }
        if networkCore, bootloaderMode != .overwriteOnly {
            throw SimulatorConfigurationError(
                "--sim-network-core needs --sim-mcuboot-mode overwrite-only: nRF Connect SDK updates both cores at once only in overwrite-only mode"
            )
        }
        if let bootloaderMode, !Self.simulatedModes.contains(bootloaderMode) {
            throw SimulatorConfigurationError(
                "--sim-mcuboot-mode \(bootloaderMode): the simulated MCUboot swaps, overwrites, executes in place or starts a firmware loader; choose a swap mode, overwrite-only, direct-xip, direct-xip-with-revert, ram-load, firmware-loader or unknown"
            )
        }
    }
}
