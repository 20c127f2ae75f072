import DBus
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The server side of `AcquireWrite`: for a characteristic a central writes without response,
/// bluetoothd asks the application for a socket (`AcquireWrite`) and sends every later write of
/// that characteristic through it, one datagram per value, instead of one `WriteValue` call each.
///
/// Writes reach the handlers in the order they came over the air, socket or call alike:
/// bluetoothd handles one ATT PDU at a time and sends a datagram before it sends the next call,
/// so every value delivery first drains the sockets, all under one lock.
package final class AcquiredWrites: Sendable {
    package typealias Handler = @Sendable ([UInt8]) throws -> Void

    private struct Acquired {
        var descriptor: Int32
        var handler: Handler
        var maximumLength: Int
    }

    /// Held while values are handed over, so that they are handed over one at a time, in order.
    private let delivery = Mutex<[Acquired]>([])
    private let stopped = Atomic(false)

    package init() {}

    /// Delivers a value that came in a `WriteValue` call, after everything already in the sockets.
    package func deliver(_ value: [UInt8], to handler: Handler) throws {
        try delivery.withLock { sockets in
            Self.drain(sockets)
            try handler(value)
        }
    }

    /// Answers bluetoothd's `AcquireWrite`: a `SOCK_SEQPACKET` pair whose one end goes to
    /// bluetoothd; a thread of its own hands what arrives at the other end to `handler`.
    /// Returns bluetoothd's end and the MTU to report.
    package func acquire(options: [DBusValue], handler: @escaping Handler) throws -> [DBusValue] {
        guard !stopped.load(ordering: .acquiring) else { throw Self.failed("the application is stopping") }
        var pair: [Int32] = [-1, -1]
        guard
            socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0
        else { throw Self.failed("socketpair: errno \(errno)") }
        let (ours, theirs) = (pair[0], pair[1])
        _ = fcntl(ours, F_SETFL, fcntl(ours, F_GETFL) | O_NONBLOCK)
        // bluetoothd does not wait for room: a datagram that does not fit is a lost write, so its
        // end gets a send buffer that holds thousands of values (FORCE goes past wmem_max as root)
        var bytes: Int32 = 4 << 20
        if setsockopt(theirs, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            _ = setsockopt(theirs, SOL_SOCKET, SO_SNDBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
        }
        let mtu = Self.mtu(in: options)
        delivery.withLock {
            $0.append(Acquired(descriptor: ours, handler: handler, maximumLength: max(mtu, 517)))
        }
        let watcher = Thread { [self] in watch(ours) }
        watcher.name = "acquired writes"
        watcher.start()
        return [.unixFD(DBusUnixFD(owning: theirs)), .uint16(UInt16(mtu))]
    }

    /// Closes every socket; their threads end.
    package func stop() {
        stopped.store(true, ordering: .releasing)
        delivery.withLock { sockets in
            Self.drain(sockets)
            for socket in sockets { shutdown(socket.descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Waits for data on `descriptor` and delivers it, until bluetoothd hangs up or `stop`.
    private func watch(_ descriptor: Int32) {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&entry, 1, -1)
            if ready < 0, errno == EINTR { continue }
            if ready > 0, entry.revents & Int16(POLLIN) != 0 { delivery.withLock { Self.drain($0) } }
            // (a hang-up comes after the last datagram, which the drain above delivered)
            if ready < 0 || entry.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { break }
        }
        delivery.withLock { sockets in sockets.removeAll { $0.descriptor == descriptor } }
        close(descriptor)
    }

    /// Hands every datagram waiting in the sockets to its handler (called with the lock held).
    private static func drain(_ sockets: [Acquired]) {
        for socket in sockets {
            var buffer = [UInt8](repeating: 0, count: socket.maximumLength)
            while true {
                let count = buffer.withUnsafeMutableBytes {
                    recv(socket.descriptor, $0.baseAddress, $0.count, 0)
                }
                guard count > 0 else { break }
                // a write command has no answer to carry an error back: the handler had its say
                try? socket.handler(Array(buffer[0..<count]))
            }
        }
    }

    /// The `mtu` option of `AcquireWrite` (bluetoothd 5.66 sends the link's ATT MTU).
    private static func mtu(in options: [DBusValue]) -> Int {
        options.first?.stringKeyedDictionary?["mtu"]?.intValue ?? 23
    }

    private static func failed(_ reason: String) -> DBusError {
        .error(name: "org.bluez.Error.Failed", message: reason)
    }
}
