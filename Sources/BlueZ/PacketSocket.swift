import CDatagrams
import GATT
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One end of the `SOCK_SEQPACKET` socket pair bluetoothd hands out for `AcquireWrite` and
/// `AcquireNotify`: one datagram is one ATT value. bluetoothd makes it non-blocking; sending
/// waits for room with `poll`, which is the only flow control between us and bluetoothd.
final class PacketSocket: Sendable {
    /// What ended the socket: bluetoothd hung up (the link dropped) or the wait for room timed out.
    enum Failure: Error {
        case hungUp
        case timedOut
        case failed(errno: Int32)
    }

    private let descriptor: Mutex<Int32>
    /// The ATT MTU bluetoothd reported when it handed out the socket.
    let mtu: Int

    init(fileDescriptor: Int32, mtu: Int) {
        descriptor = Mutex(fileDescriptor)
        self.mtu = mtu
    }

    deinit { close() }

    var fileDescriptor: Int32 { descriptor.withLock { $0 } }

    func close() {
        let fd = descriptor.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// Ends the socket both ways: its poller sees a hang-up.
    func shutDown() {
        let fd = fileDescriptor
        if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Sends `bytes` as consecutive datagrams of `size` bytes (the last may be shorter; empty
    /// `bytes` are one empty datagram), several per system call, waiting up to `timeout` at a
    /// time for room in the socket buffer. Adds the bytes of each datagram sent to `sent`, also
    /// when a later one fails.
    func send(_ bytes: ArraySlice<UInt8>, inDatagramsOf size: Int, timeout: Duration, sent: inout Int)
        throws(Failure)
    {
        let fd = fileDescriptor
        guard fd >= 0 else { throw .hungUp }
        let outcome: Result<Void, Failure> = bytes.withUnsafeBytes { buffer in
            let datagrams = bytes.packetRanges(ofSize: size).map { packet in
                iovec(
                    iov_base: UnsafeMutableRawPointer(
                        mutating: buffer.baseAddress.map { $0 + (packet.lowerBound - bytes.startIndex) }),
                    iov_len: packet.count)
            }
            return Result { () throws(Failure) in
                try Self.send(datagrams, on: fd, timeout: timeout, sent: &sent)
            }
        }
        try outcome.get()
    }

    private static func send(_ datagrams: [iovec], on fd: Int32, timeout: Duration, sent: inout Int)
        throws(Failure)
    {
        var next = 0
        while next < datagrams.count {
            let count = datagrams.withUnsafeBufferPointer {
                dfu_send_datagrams(
                    fd, $0.baseAddress! + next, UInt32(datagrams.count - next),
                    Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if count > 0 {
                sent += datagrams[next..<next + Int(count)].reduce(0) { $0 + $1.iov_len }
                next += Int(count)
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN:
                try waitFor(Int16(POLLOUT), fd: fd, until: ContinuousClock.now + timeout)
            case EPIPE, ECONNRESET, ENOTCONN, EBADF: throw .hungUp
            case let code: throw .failed(errno: code)
            }
        }
    }

    /// What one read of the socket found.
    enum Received {
        case value([UInt8])
        /// Nothing waiting now; poll for more.
        case nothingYet
        /// Hang-up or `shutDown`.
        case ended
    }

    /// Reads the next datagram if one is waiting, without blocking.
    func receiveNow(maximumLength: Int) throws(Failure) -> Received {
        let fd = fileDescriptor
        guard fd >= 0 else { return .ended }
        while true {
            var count = 0
            var failure: Int32 = 0
            // the datagram lands in the value it becomes: no zeroing, no copy
            let value = [UInt8](unsafeUninitializedCapacity: maximumLength) { buffer, initialized in
                count = Glibc.recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
                failure = errno
                initialized = max(0, count)
            }
            if count > 0 { return .value(value) }
            if count == 0 { return .ended }
            switch failure {
            case EINTR: continue
            case EAGAIN: return .nothingYet
            case EPIPE, ECONNRESET, ENOTCONN, EBADF: return .ended
            case let code: throw .failed(errno: code)
            }
        }
    }

    private static func waitFor(_ events: Int16, fd: Int32, until deadline: ContinuousClock.Instant)
        throws(Failure)
    {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw .timedOut }
            let milliseconds = Int32(min(left.milliseconds, 1000))
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .failed(errno: errno)
            }
            if ready == 0 { continue }
            if entry.revents & events != 0 { return }
            if entry.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { throw .hungUp }
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded up.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}
