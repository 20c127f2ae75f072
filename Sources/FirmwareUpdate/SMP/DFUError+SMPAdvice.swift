extension DFUError {
    /// What a person can try next after an SMP update failed with this error: the device runs its
    /// application all along (no bootloader waits for the update), and `activation` is how the
    /// update activated the new images.
    public func smpAdvice(activation: DFUOptions.SMP.Activation) -> String {
        switch self {
        case .deviceDisconnected, .bytesLost, .crcError, .receivingNotificationFailed,
            .writingCharacteristicFailed:
            "move closer to the device and retry; it keeps running its image, and the upload resumes where it stopped"
        case .serviceDiscoveryFailed, .deviceNotSupported:
            "check that the device runs an SMP server (MCUmgr) with image management over Bluetooth"
        case .remoteImageInvalidFlashAddress:
            // `CONFIG_MCUMGR_GRP_IMG_REJECT_DIRECT_XIP_MISMATCHED_SLOT` (zephyr_img_mgmt.c)
            "a direct-XIP device takes only an image linked for the slot it does not run from: give the "
                + "dfu_application.zip that holds both slot variants, or the other variant "
                + "(zephyr.signed.bin for slot 0, mcuboot_secondary_app.signed.bin for slot 1)"
        case .imageReverted where activation == .testOnly:
            "the new image did not boot or its test ended with a reset; try it on a development kit and read its log"
        default:
            advice
        }
    }
}
