import DBus
import Foundation
import GATT
import Synchronization

/// Notifications through the socket of `AcquireNotify`, one datagram per notification, read on
/// the D-Bus connection's thread as they come (`DBusConnection.watchReadable`). Ends with
/// `GATTError.disconnected` when bluetoothd hangs up or the link drops; ending the iteration
/// closes the socket, which unsubscribes.
enum NotificationSocketStream {
    /// The stream, or `nil` when bluetoothd refuses `AcquireNotify` (the caller falls back to
    /// `StartNotify`).
    static func open(_ characteristic: BlueZCharacteristic, timeout: Duration) async throws
        -> AsyncThrowingStream<[UInt8], any Error>?
    {
        let context = characteristic.context
        try await trySubscribing(characteristic, timeout: timeout)
        let reply: [DBusValue]
        do {
            reply = try await context.bus.call(
                characteristic.path, BlueZ.characteristicInterface, "AcquireNotify",
                [.propertyDictionary([])], timeout: timeout)
        } catch {
            try characteristic.checkLink()
            return nil
        }
        guard reply.count == 2, let fd = reply[0].unixFDValue, let mtu = reply[1].intValue else { return nil }
        let socket = PacketSocket(fileDescriptor: fd.take(), mtu: mtu)
        let device = context.device
        let link = context.link
        let consumerLeft = Flag()

        return AsyncThrowingStream { continuation in
            let token = link.onDown { reason in
                continuation.finish(throwing: GATTError.disconnected(device: device, reason: reason))
                socket.shutDown()
            }
            // read where the update runs (the connection's thread): no thread of its own to wake
            let watch = context.bus.connection.watchReadable(socket.fileDescriptor) { hungUp in
                var ended = hungUp
                do {
                    // One datagram per wake-up (the poll is level-triggered: more waiting wake
                    // it again) saves the read that finds none; after a hang-up, all that is left.
                    reading: repeat {
                        switch try socket.receiveNow(maximumLength: max(mtu, 517)) {
                        case .value(let value): continuation.yield(value)
                        case .nothingYet: break reading
                        case .ended:
                            ended = true
                            break reading
                        }
                    } while hungUp
                } catch {
                    continuation.finish(
                        throwing: GATTError.operationFailed(
                            operation: "receiving notifications from \(characteristic.uuid) on \(device)",
                            reason: "\(error)"))
                    return false
                }
                guard ended else { return true }
                // end of stream: the consumer left, or bluetoothd hung up (the link dropped)
                if !consumerLeft.isSet {
                    link.markDown("bluetoothd closed the notification socket")
                    continuation.finish(
                        throwing: GATTError.disconnected(device: device, reason: link.downReason ?? "hung up")
                    )
                }
                return false
            }
            continuation.onTermination = { termination in
                link.removeObserver(token)
                if case .cancelled = termination {
                    // the consumer left: closing the socket releases the subscription
                    consumerLeft.set()
                    socket.shutDown()
                }
                watch.cancel()
            }
        }
    }

    /// bluetoothd (5.66, and later releases until a fix proposed upstream in 2025) leaves a
    /// failed `AcquireNotify` behind for good when the CCC write it makes fails (an ATT error, as
    /// in a stale table of the device) or the link drops during it: the call is never answered,
    /// every later `AcquireNotify` and `StartNotify` of the characteristic is refused ("Notify
    /// acquired") until bluetoothd restarts, and `StopNotify` or removing the device reads freed
    /// memory. `StartNotify` fails cleanly, so it tries the same CCC write first and `StopNotify`
    /// ends it; a stale table is forgotten on the way.
    private static func trySubscribing(_ characteristic: BlueZCharacteristic, timeout: Duration) async throws
    {
        try await characteristic.startNotify(timeout: timeout)
        _ = try await characteristic.call(characteristic.subscribing, "StopNotify", [], timeout: timeout)
    }
}

/// A one-way switch shared between threads.
final class Flag: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() { value.withLock { $0 = true } }
}
