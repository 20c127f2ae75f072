import GATT
import Logging
import NordicDFU

/// Updates one device: connects, compares versions, switches it into its bootloader when it
/// runs an application, sends every part of the package (the device reboots between parts) and
/// reports what happens as events.
///
/// ```swift
/// let updater = DFUUpdater(package: package, central: central, device: DeviceIdentifier("C0:DE:00:00:00:10"))
/// let (controller, events) = updater.start()
/// for await event in events { … }   // the last event is `.result`
/// ```
public struct DFUUpdater: FirmwareUpdater {
    public let package: DFUPackage
    public let central: any GATTCentral
    public let device: DeviceIdentifier
    public let options: DFUOptions
    /// Where the update logs (swift-log), with the metadata `device` and, while a part is sent,
    /// `part` (`2/3`). Every line also reaches the event stream as `.log`.
    public let logger: Logger

    /// An updater that sends `package` to `device`, found through `central`, logging to
    /// `logger` (by default one labelled `dfu`, as the process's logging system makes it).
    public init(
        package: DFUPackage, central: any GATTCentral, device: DeviceIdentifier,
        options: DFUOptions = .init(),
        logger: Logger = Logger(label: "dfu")
    ) {
        self.package = package
        self.central = central
        self.device = device
        self.options = options
        self.logger = logger
    }

    /// Starts the update in a task of its own. The controller pauses, resumes or aborts it; the
    /// stream delivers its events and finishes after `.result`.
    ///
    /// `controller` may be made beforehand, so that `observer` can use it. `observer`, when given,
    /// sees every event first, synchronously in the update's own task as
    /// it happens (the stream may lag behind): it must return quickly, and a controller call made
    /// in it takes effect at the update's next step.
    public func start(
        controller: DFUController = DFUController(),
        observer: @escaping @Sendable (DFUEvent) -> Void = { _ in }
    ) -> (controller: DFUController, events: AsyncStream<DFUEvent>) {
        let package = package
        return UpdateSession.start(
            central: central, device: device, options: options, logger: logger, controller: controller,
            observer: observer, advice: { _ in nil },
            body: { session in await UpdateRun(session: session, package: package).run() })
    }
}
