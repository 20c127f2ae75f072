import DBus
import DFUSupport
import GATT
import Synchronization

/// Follows one `Device1` object through bluetoothd's signals: its properties, and whether the
/// object (or bluetoothd) went away. Others observe changes or wait for a condition.
final class DeviceMonitor: Sendable {
    struct Snapshot: Sendable {
        var device: DeviceProperties
        /// Why the device object is gone (removed, or bluetoothd left the bus); `nil` while it exists.
        var goneReason: String?
    }

    private struct State {
        var snapshot: Snapshot
        var nextToken = 0
        var observers: [Int: @Sendable (Snapshot) -> Void] = [:]
    }

    let path: String
    private let state: Mutex<State>
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// Subscribes to the device's signals, then reads its current properties.
    static func start(bus: BlueZBus, path: String) async throws -> DeviceMonitor {
        let signals = try await bus.signals(under: path)
        let monitor = DeviceMonitor(path: path)
        let consumer = Task { [weak monitor] in
            for await signal in signals {
                guard let monitor else { return }
                monitor.handle(signal)
            }
        }
        monitor.task.withLock { $0 = consumer }
        try await monitor.refresh(bus)
        return monitor
    }

    /// Reads all properties again (after a method call whose effects must be seen at once).
    func refresh(_ bus: BlueZBus) async throws {
        do {
            let reply = try await bus.call(
                path, BlueZ.propertiesInterface, "GetAll", [.string(BlueZ.deviceInterface)],
                timeout: .seconds(10))
            update { $0.device.apply(changed: reply.first?.stringKeyedDictionary ?? [:], invalidated: []) }
        } catch let error as DBusError where error.name == DBusError.Name.unknownObject {
            update { $0.goneReason = "bluetoothd does not know the device" }
        }
    }

    private init(path: String) {
        self.path = path
        state = Mutex(State(snapshot: Snapshot(device: DeviceProperties(path: path, values: [:]))))
    }

    deinit { stop() }

    /// Ends the signal subscription.
    func stop() {
        task.withLock { $0.take() }?.cancel()
    }

    var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// Calls `observer` with the current snapshot and after every change; returns a token for
    /// `removeObserver`.
    @discardableResult
    func observe(_ observer: @escaping @Sendable (Snapshot) -> Void) -> Int {
        let (token, snapshot) = state.withLock { state in
            state.nextToken += 1
            state.observers[state.nextToken] = observer
            return (state.nextToken, state.snapshot)
        }
        observer(snapshot)
        return token
    }

    func removeObserver(_ token: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: token) }
    }

    /// Returns the first snapshot for which `condition` is true; rethrows what `condition`
    /// throws; throws `GATTError.timeout` after `limit`.
    func wait(
        _ limit: Duration, _ operation: String, until condition: @escaping @Sendable (Snapshot) throws -> Bool
    ) async throws -> Snapshot {
        typealias Waiter = CheckedContinuation<Snapshot, any Error>
        let box = Mutex<(token: Int?, continuation: Waiter?)>((nil, nil))
        defer { if let token = box.withLock({ $0.token }) { removeObserver(token) } }
        return try await withRealTimeout(limit, waitingFor: operation) {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: Waiter) in
                    box.withLock { $0.continuation = continuation }
                    let token = self.observe { snapshot in
                        let result = Result { try condition(snapshot) }
                        if case .success(false) = result { return }
                        guard let waiter = box.withLock({ $0.continuation.take() }) else { return }
                        waiter.resume(with: result.map { _ in snapshot })
                    }
                    box.withLock { $0.token = token }
                    if Task.isCancelled {
                        box.withLock { $0.continuation.take() }?.resume(throwing: CancellationError())
                    }
                }
            } onCancel: {
                box.withLock { $0.continuation.take() }?.resume(throwing: CancellationError())
            }
        }
    }

    private func handle(_ signal: BusSignal) {
        if signal.isBlueZGone {
            update { $0.goneReason = "bluetoothd left the system bus" }
        } else if let removed = signal.interfacesRemoved {
            if removed.path == path && removed.interfaces.contains(BlueZ.deviceInterface) {
                update { $0.goneReason = "bluetoothd removed the device" }
            }
        } else if signal.path == path, let change = signal.propertiesChanged,
            change.interface == BlueZ.deviceInterface
        {
            update { $0.device.apply(changed: change.changed, invalidated: change.invalidated) }
        }
    }

    private func update(_ change: (inout Snapshot) -> Void) {
        let (snapshot, observers) = state.withLock { state in
            change(&state.snapshot)
            return (state.snapshot, Array(state.observers.values))
        }
        for observer in observers { observer(snapshot) }
    }
}

extension DeviceMonitor.Snapshot {
    var isConnected: Bool { goneReason == nil && device.isConnected }
}
