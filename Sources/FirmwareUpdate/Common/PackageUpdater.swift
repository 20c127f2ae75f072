import GATT
import Logging

/// The update of one device with one package, whatever its family: ``DFUUpdater`` for a
/// `DFUPackage`, ``SMPUpdater`` for an `MCUbootPackage`. The package's family runs the update
/// (``UpdatablePackage/runner``); the session, the task and the events are the same for all.
public struct PackageUpdater<Package: UpdatablePackage>: FirmwareUpdater {
    public let package: Package
    public let central: any GATTCentral
    public let device: DeviceIdentifier
    public let options: DFUOptions
    /// Where the update logs (swift-log), with the metadata `device` and, while a part is sent,
    /// `part` (`2/3`). Every line also reaches the event stream as `.log`.
    public let logger: Logger

    /// An updater that sends `package` to `device`, found through `central`, logging to
    /// `logger` (by default one labelled `dfu`, as the process's logging system makes it).
    public init(
        package: Package, central: any GATTCentral, device: DeviceIdentifier, options: DFUOptions = .init(),
        logger: Logger = Logger(label: "dfu")
    ) {
        self.package = package
        self.central = central
        self.device = device
        self.options = options
        self.logger = logger
    }

    /// Starts the update in a task of its own, on the transport's thread where it has one (each
    /// answer is taken where it was read). The controller pauses, resumes or aborts it; the
    /// stream delivers its events and finishes after `.result`.
    ///
    /// `controller` may be made beforehand, so that `observer` can use it. `observer`, when given,
    /// sees every event first, synchronously in the update's own task as it happens (the stream
    /// may lag behind): it must return quickly, and a controller call made in it takes effect at
    /// the update's next step.
    public func start(
        controller: DFUController = DFUController(),
        observer: @escaping @Sendable (DFUEvent) -> Void = { _ in }
    ) -> (controller: DFUController, events: AsyncStream<DFUEvent>) {
        let (events, continuation) = AsyncStream.makeStream(of: DFUEvent.self, bufferingPolicy: .unbounded)
        var logger = logger
        logger[metadataKey: "device"] = "\(device)"
        let options = options
        let runner = Package.runner
        let session = UpdateSession(
            central: central, device: device, options: options, controller: controller, events: continuation,
            observer: observer, logger: logger, advice: { runner.advice($0, options) })
        let package = package
        let task = Task(executorPreference: central.taskExecutor) { await runner.run(session, package) }
        controller.attach(task)
        return (controller, events)
    }
}
