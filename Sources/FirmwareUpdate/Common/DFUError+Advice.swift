extension DFUError {
    /// What a person can try next, in a few words.
    public var advice: String {
        switch self {
        case .remoteExtendedErrorFwVersionFailure:
            "the device refuses this version (downgrade protection); build the package with a higher version"
        case .remoteExtendedErrorHwVersionFailure:
            "the package was built for other hardware; check --hw-version of the package"
        case .remoteExtendedErrorSdVersionFailure:
            "the package's sd_req does not list the SoftDevice on the device; rebuild it with the right --sd-req"
        case .remoteExtendedErrorSignatureMissing, .remoteExtendedErrorVerificationFailed,
            .remoteSecureDFUSignatureMismatch, .remoteExtendedErrorWrongSignatureType,
            .remoteSecureDFUInvalidObject:
            "the bootloader rejects the init packet; sign the package with the key the bootloader trusts"
        case .remoteButtonlessDFUNotBonded:
            "the link is encrypted but this host holds no bond with the device: pair with it (--pair, "
                + "docs/pairing.md), or use an application with buttonless DFU without bonds"
        case .remoteButtonlessDFUBusy:
            "try again in a few seconds"
        case .remoteButtonlessDFUOpCodeNotSupported, .remoteButtonlessDFUInvalidAdvertisementName:
            "retry without an alternative advertising name"
        case .failedToConnect:
            "check that the device is powered, in range and advertising, then retry"
        case .deviceDisconnected, .bytesLost, .crcError, .receivingNotificationFailed:
            "move closer to the device and retry; the device waits in its bootloader for the update"
        case .bluetoothDisabled:
            "power on the adapter and check that bluetoothd runs"
        case .serviceDiscoveryFailed, .deviceNotSupported:
            "check that the device runs a Nordic DFU bootloader, an application with buttonless DFU, or an SMP server (MCUmgr)"
        case .extendedInitPacketRequired, .initPacketRequired, .fileInvalid, .fileNotSpecified:
            "use a package with an init packet made for this bootloader"
        case .activationNotConfirmed:
            "the device may run the new image already: check what it runs (dfu-update info) before updating it again"
        case .imageReverted:
            "the new image did not boot or did not confirm itself; try it on a development kit, or update with --activation test-only to see it run"
        case .imageHashMismatch, .remoteImageFlashWriteFailed, .remoteImageFlashEraseFailed:
            "retry; the upload starts again from the start"
        case .remoteImageNoFreeSlot, .remoteImageImageAlreadyPending:
            "the device holds an image pending for test: reset it (it boots that image, or reverts it), then retry"
        case .remoteImageInvalidImageTooLarge, .remoteImageInvalidImageDataOverrun:
            "the image is larger than the device's slot: build a smaller one, or check the device's partitions"
        case .remoteImageCurrentVersionIsNewer:
            "the device runs a newer image; update with a newer one"
        case .remoteImageInvalidImageHeaderMagic, .remoteImageInvalidImageHeader, .remoteImageInvalidHash:
            "give a signed MCUboot image made for the device's MCUboot (app_update.bin or zephyr.signed.bin of its build)"
        case .authenticationFailed:
            "check the passkey the source gives against the device's (its label or display); nothing is tried "
                + "again, as a device may lock out after failed attempts"
        case .pairingRefused:
            "put the device in its pairing mode if it has one (a button, a bond slot free), then retry once"
        case .bondLost:
            "remove the stale bond and pair again: retry with --re-pair (or `bluetoothctl remove ADDRESS`); "
                + "a device that asks for a passkey needs one given (docs/pairing.md)"
        case .securityRequired:
            "give the device's passkey with --passkey-file, --passkey-env or --passkey-command "
                + "(--accept-numeric-comparison for a device that shows a number to compare; docs/pairing.md)"
        case .remoteMcumgrAccessDenied:
            "the device wants a paired link for SMP: pair with it first (bluetoothctl pair ADDRESS)"
        case .remoteMcumgrBusy, .remoteMcumgrNoMemory:
            "try again in a few seconds"
        case .remoteMcumgrNotSupported:
            "the device's firmware lacks this MCUmgr command: check that image and OS management are enabled"
        case .remoteLegacyDFUInvalidState:
            "reset the device and retry"
        case .remoteLegacyDFUOperationFailed:
            "the init packet does not match the device (type, revision or SoftDevice); check the package"
        default:
            "retry; if it fails again, check the package against the device's bootloader"
        }
    }
}
