import BlueZ
import DFUSimulator
import Foundation
import GATT

/// The device behind the stand-in: what a write makes it do, carried out in order.
extension BluetoothdStandIn {
    /// A value the central wrote: the device reacts now; its notifications go out when due, and
    /// a reset after them.
    func received(_ uuid: BluetoothUUID, _ value: [UInt8]) {
        let reaction = device.write(uuid, value)
        let link = state.withLock { $0.link }
        let now = ContinuousClock.now
        for notification in reaction.notifications {
            actions.continuation.yield(
                .notify(
                    notification.characteristic, notification.value, due: now + notification.after, link: link
                ))
        }
        if reaction.dropsLink { actions.continuation.yield(.dropLink(rebootDelay: reaction.rebootDelay)) }
    }

    func carryOut(_ action: Action) async {
        switch action {
        case .notify(let uuid, let value, let due, let link):
            try? await Task.sleep(until: due)
            notify(uuid, value, link: link)
        case .dropLink(let rebootDelay):
            // (the central reads the last notification before it sees the link drop)
            try? await Task.sleep(for: .milliseconds(20))
            dropLink()
            if let rebootDelay {
                try? await Task.sleep(for: rebootDelay)
                _ = device.reboot()
            }
        }
    }

    func notify(_ uuid: BluetoothUUID, _ value: [UInt8], link: Int) {
        let (socket, path) = state.withLock { state -> (Int32?, String?) in
            guard state.link == link, state.connected else { return (nil, nil) }
            return (
                state.notifySockets[uuid],
                state.startedNotify.contains(uuid) ? state.characteristics[uuid] : nil
            )
        }
        if let socket {
            _ = value.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        } else if let path {
            try? connection.setProperty(
                "Value", interface: BlueZ.characteristicInterface, path: path, to: .bytes(value))
        }
    }
}
