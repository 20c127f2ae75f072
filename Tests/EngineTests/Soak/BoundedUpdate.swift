import DFUSimulator
import DFUSupport
import FirmwareUpdate
import GATT
import NordicDFU

extension EngineHarness {
    /// Runs an update like `update(_:options:)` (of `target`, by default the configured
    /// device), but gives up after `limit` of real time: nil then means the engine hung (the task
    /// is cancelled and left behind).
    func update(
        _ package: DFUPackage, options: DFUOptions, target: DeviceIdentifier? = nil, within limit: Duration
    ) async -> (DFUResult, [DFUEvent])? {
        let events = Locked<[DFUEvent]>([])
        let updater = DFUUpdater(
            package: package, central: central, device: target ?? device, options: options)
        let run = Task { await updater.run { event in events.withLock { $0.append(event) } } }
        let answered = Locked(false)
        let result: DFUResult? = await withCheckedContinuation { continuation in
            let finish: @Sendable (DFUResult?) -> Void = { result in
                let first = answered.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: result) }
            }
            let timer = Task {
                // Cancelled when the run ended first: then it must not answer.
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                finish(nil)
            }
            Task {
                let result = await run.value
                finish(result)
                timer.cancel()
            }
        }
        guard let result else {
            run.cancel()
            return nil
        }
        return (result, events.withLock { $0 })
    }
}
