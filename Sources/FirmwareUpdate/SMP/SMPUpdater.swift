import MCUmgr

/// Updates one device through SMP (MCUmgr image management, as Zephyr and nRF Connect SDK
/// devices with MCUboot take updates): connects, reads the image list and skips images the
/// device runs, uploads the others with a window of chunks in flight (resuming after a lost
/// link), then tests, resets, checks and confirms them (`DFUOptions.SMP.activation`). The
/// events, controller and result are those of ``DFUUpdater``.
///
/// ```swift
/// let image = try MCUbootImage(bytes: bytes, name: "app_update.bin")
/// let updater = SMPUpdater(package: MCUbootPackage(image: image), central: central, device: DeviceIdentifier("C0:DE:00:00:00:20"))
/// let result = await updater.run { event in … }
/// ```
public typealias SMPUpdater = PackageUpdater<MCUbootPackage>

extension SMPUpdateRun: FamilyRun {
    /// An SMP failure's advice depends on how the images are activated.
    static func advice(for error: DFUError, options: DFUOptions) -> String? {
        error.smpAdvice(activation: options.smp.activation)
    }
}
