extension DFUError {
    /// What a person can try next after an SMP update failed with this error: the device runs its
    /// application all along (no bootloader waits for the update), and `activation` is how the
    /// update activated the new images.
    public func smpAdvice(activation: DFUOptions.SMPActivation) -> String {
        switch self {
        case .deviceDisconnected, .bytesLost, .crcError, .receivingNotificationFailed,
            .writingCharacteristicFailed:
            "move closer to the device and retry; it keeps running its image, and the upload resumes where it stopped"
        case .serviceDiscoveryFailed, .deviceNotSupported:
            "check that the device runs an SMP server (MCUmgr) with image management over Bluetooth"
        case .imageReverted where activation == .testOnly:
            "the new image did not boot or its test ended with a reset; try it on a development kit and read its log"
        default:
            advice
        }
    }
}
