import GATT

/// An update of one device by either protocol family: ``DFUUpdater`` (Nordic's Secure and Legacy
/// DFU) and ``SMPUpdater`` (MCUmgr image management), both a ``PackageUpdater``, with the same
/// controller, events and result.
public protocol FirmwareUpdater: Sendable {
    /// The device, as the user named it.
    var device: DeviceIdentifier { get }

    /// Starts the update in a task of its own. The controller pauses, resumes or aborts it; the
    /// stream delivers its events and finishes after `.result`.
    ///
    /// `controller` may be made beforehand, so that `observer` can use it. `observer` sees every
    /// event first, synchronously in the update's own task as it happens (the stream may lag
    /// behind): it must return quickly, and a controller call made in it takes effect at the
    /// update's next step.
    func start(controller: DFUController, observer: @escaping @Sendable (DFUEvent) -> Void)
        -> (controller: DFUController, events: AsyncStream<DFUEvent>)
}

extension FirmwareUpdater {
    /// Runs the update to its end and returns the result, handing every event to `onEvent`.
    public func run(onEvent: @Sendable (DFUEvent) -> Void = { _ in }) async -> DFUResult {
        let (controller, events) = start(controller: DFUController(), observer: { _ in })
        return await withTaskCancellationHandler {
            var result: DFUResult?
            for await event in events {
                onEvent(event)
                if case .result(let final) = event { result = final }
            }
            return result ?? DFUResult(outcome: .aborted, bytesSent: 0, duration: .zero, retries: 0)
        } onCancel: {
            controller.abort()
        }
    }
}
