import DBus
import GATT

/// Notifications through `StartNotify`: each one arrives as a `PropertiesChanged` signal of the
/// characteristic's `Value`. Ends with `GATTError.disconnected` when the link drops; ending the
/// iteration calls `StopNotify`.
enum NotificationSignalStream {
    static func open(_ characteristic: BlueZCharacteristic, timeout: Duration) async throws
        -> AsyncThrowingStream<[UInt8], any Error>
    {
        let context = characteristic.context
        let path = characteristic.path
        let device = context.device
        // subscribe before StartNotify, so that no early notification is missed
        let signals: AsyncStream<BusSignal>
        do {
            signals = try await context.bus.signals(under: path)
        } catch {
            throw gattError(error, characteristic.subscribing, device: device)
        }
        try await characteristic.startNotify(timeout: timeout)

        return AsyncThrowingStream { continuation in
            let token = context.link.onDown { reason in
                continuation.finish(throwing: GATTError.disconnected(device: device, reason: reason))
            }
            let forwarder = Task {
                for await signal in signals where signal.path == path {
                    if let change = signal.propertiesChanged,
                        change.interface == BlueZ.characteristicInterface,
                        let value = change.changed["Value"]?.bytes
                    {
                        continuation.yield(value)
                    }
                }
            }
            continuation.onTermination = { termination in
                context.link.removeObserver(token)
                forwarder.cancel()
                if case .cancelled = termination, context.link.isUp {
                    Task {
                        _ = try? await context.bus.call(
                            path, BlueZ.characteristicInterface, "StopNotify", timeout: .seconds(5))
                    }
                }
            }
        }
    }
}
