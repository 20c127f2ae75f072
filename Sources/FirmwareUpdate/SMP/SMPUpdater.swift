import GATT
import Logging
import MCUmgr

/// Updates one device through SMP (MCUmgr image management, as Zephyr and nRF Connect SDK
/// devices with MCUboot take updates): connects, reads the image list and skips images the
/// device runs, uploads the others with a window of chunks in flight (resuming after a lost
/// link), then tests, resets, checks and confirms them (`DFUOptions.smpActivation`). The
/// events, controller and result are those of ``DFUUpdater``.
///
/// ```swift
/// let image = try MCUbootImage(bytes: bytes, name: "app_update.bin")
/// let updater = SMPUpdater(package: MCUbootPackage(image: image), central: central, device: DeviceIdentifier("C0:DE:00:00:00:20"))
/// let result = await updater.run { event in … }
/// ```
public struct SMPUpdater: FirmwareUpdater {
    public let package: MCUbootPackage
    public let central: any GATTCentral
    public let device: DeviceIdentifier
    public let options: DFUOptions
    /// Where the update logs (swift-log), with the metadata `device` and, while an image is
    /// uploaded, `part` (`1/2`). Every line also reaches the event stream as `.log`.
    public let logger: Logger

    /// An updater that installs `package` on `device`, found through `central`.
    public init(
        package: MCUbootPackage, central: any GATTCentral, device: DeviceIdentifier,
        options: DFUOptions = .init(), logger: Logger = Logger(label: "dfu")
    ) {
        self.package = package
        self.central = central
        self.device = device
        self.options = options
        self.logger = logger
    }

    public func start(
        controller: DFUController = DFUController(),
        observer: @escaping @Sendable (DFUEvent) -> Void = { _ in }
    ) -> (controller: DFUController, events: AsyncStream<DFUEvent>) {
        let package = package
        let activation = options.smpActivation
        return UpdateSession.start(
            central: central, device: device, options: options, logger: logger, controller: controller,
            observer: observer, advice: { $0.smpAdvice(activation: activation) },
            body: { session in await SMPUpdateRun(session: session, package: package).run() })
    }
}
