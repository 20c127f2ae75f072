import Foundation

/// One plain HTTP/1.1 GET on a loopback port, read as it arrives: for a response that does not
/// end by itself (server-sent events), which URLSession hands over only once it ends.
public final class LoopbackHTTPStream {
    private let descriptor: Int32
    private var received = Data()

    /// Connects to 127.0.0.1:`port` and asks for `path`; reads wait at most `timeout` each.
    public init(port: Int, path: String, timeout: Int = 30) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        guard connected, send(descriptor, request, request.count, 0) == request.count else {
            close(descriptor)
            throw LoopbackPortError(description: "no connection to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    deinit { close(descriptor) }

    /// What arrived up to and including the first `text`; throws when the server closes or a
    /// read times out before it.
    public func read(until text: String) throws -> String {
        while String(decoding: received, as: UTF8.self).range(of: text) == nil {
            guard try readMore() else {
                throw LoopbackPortError(description: "the server closed before sending \(text)")
            }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Reads until the server closes the connection (throws when a read times out).
    public func readToEnd() throws -> String {
        while try readMore() {}
        return String(decoding: received, as: UTF8.self)
    }

    private func readMore() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count >= 0 else { throw LoopbackPortError(description: "read failed: errno \(errno)") }
        received.append(contentsOf: buffer[..<count])
        return count > 0
    }
}
