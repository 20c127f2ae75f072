import GATT

/// Tells a device that lost its bond from a link that merely dropped. bluetoothd encrypts a
/// bonded device's link as soon as it connects; a device without the keys answers "PIN or key
/// missing" and the kernel drops the link, giving reason 4 (authentication failure) in its
/// management interface's Device Disconnected event. bluetoothd 5.66 and 5.82 pass that reason
/// on nowhere on D-Bus, so the watch reads the event itself: from a control socket opened before
/// the link drops, and trusted (root or CAP_NET_ADMIN). Without that, nothing is known.
struct LostBondWatch {
    private let socket: KernelSocket
    private let controller: UInt16
    private let address: BluetoothAddress

    /// Watches the links of adapter `hciN` to `address`; nil when the control socket cannot be
    /// opened.
    init?(adapter: String, address: BluetoothAddress) {
        guard adapter.hasPrefix("hci"), let index = UInt16(adapter.dropFirst(3)),
            let socket = try? KernelSocket(.control)
        else { return nil }
        (self.socket, controller, self.address) = (socket, index, address)
    }

    /// Whether the kernel reported the link down for an authentication failure. The event
    /// reaches this socket as it reaches bluetoothd, before bluetoothd says the link is down, so
    /// the wait is short; an untrusted socket gets no such event and waits it out.
    func linkDroppedForAuthentication(within timeout: Duration = .milliseconds(300)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while let event = socket.nextEvent(until: deadline) {
            guard event.controller == controller, let reason = event.disconnectReason(of: address) else {
                continue
            }
            return reason == .authenticationFailure
        }
        return false
    }
}
