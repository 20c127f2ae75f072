import FirmwareUpdate
import Foundation
import NordicDFU

/// Updates many devices at once (docs/fleet.md): one discovery scan per adapter, a read-only
/// look at every device to choose its package (the plan), then the updates, never more at once
/// than `options.concurrency` overall and an adapter's `maximumConnections` on it.
///
/// ```swift
/// let fleet = try Fleet(inventory: inventory, packages: packages, adapters: [adapter])
/// let (controller, events) = fleet.start()
/// for await event in events { … }   // the last event is `.ended(report)`
/// ```
public struct Fleet: Sendable {
    public let inventory: FleetInventory
    /// Every package the inventory names, by path.
    public let packages: [String: FirmwarePackage]
    public let adapters: [FleetAdapter]
    public let options: FleetOptions
    /// Where finished devices are remembered, for a resumable run.
    public let state: FleetStateFile?

    /// Throws when the inventory names a package not in `packages` or an adapter not in
    /// `adapters`.
    public init(
        inventory: FleetInventory, packages: [String: FirmwarePackage], adapters: [FleetAdapter],
        options: FleetOptions = .init(), state: FleetStateFile? = nil
    ) throws(FleetInventoryError) {
        if let missing = inventory.packagePaths.first(where: { packages[$0] == nil }) {
            throw FleetInventoryError("the package \(missing) was not loaded")
        }
        guard !adapters.isEmpty else { throw FleetInventoryError("no adapter to reach the devices through") }
        let names = Set(adapters.map(\.name))
        for entry in inventory.devices {
            if let adapter = inventory.adapter(of: entry), !names.contains(adapter) {
                throw FleetInventoryError(
                    "device '\(entry.device)' names adapter '\(adapter)', which is not in use; "
                        + "pass it with --adapter")
            }
        }
        self.inventory = inventory
        self.packages = packages
        self.adapters = adapters
        self.options = options
        self.state = state
    }

    /// Starts the run in a task of its own. The stream delivers its events and finishes after
    /// `.ended`; `FleetController.cancel()` aborts every update in progress (each device is told
    /// to abort, so that it can take the update again) and starts no more. `observer`, when given,
    /// sees every event first, synchronously in the task that made it (the stream may lag
    /// behind); it must return quickly.
    public func start(observer: @escaping @Sendable (FleetEvent) -> Void = { _ in })
        -> (controller: FleetController, events: AsyncStream<FleetOutput>)
    {
        let (events, continuation) = AsyncStream.makeStream(of: FleetOutput.self, bufferingPolicy: .unbounded)
        let run = FleetRun(fleet: self) { event in
            observer(event)
            continuation.yield(.event(event))
        }
        let task = Task {
            let report = await run.run()
            continuation.yield(.ended(report))
            continuation.finish()
        }
        return (FleetController(task: task), events)
    }

    /// Runs to the end and returns the report, handing every event to `onEvent` (in the run's
    /// own tasks, as they happen). Cancelling the calling task cancels the fleet.
    public func run(onEvent: @escaping @Sendable (FleetEvent) -> Void = { _ in }) async -> FleetReport {
        await FleetRun(fleet: self, emit: onEvent).run()
    }
}

/// What `Fleet.start()` delivers: events, then the report.
public enum FleetOutput: Sendable {
    case event(FleetEvent)
    case ended(FleetReport)
}

/// Cancels a running fleet. Safe to call from any task, more than once.
public final class FleetController: Sendable {
    private let task: Task<Void, Never>

    init(task: Task<Void, Never>) { self.task = task }

    public func cancel() { task.cancel() }
}
