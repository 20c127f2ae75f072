import Foundation

/// Loopback ports for servers a test starts (Prometheus, a command's `--metrics`).
public enum LoopbackPort {
    /// A port no one listens on now (the kernel's pick for a socket bound to port 0).
    public static func free() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        return try bindAnyPort(descriptor, listening: false)
    }

    /// A loopback port this process listens on until `body` returns: a port in use, as another
    /// program would hold it.
    public static func occupied<Result>(_ body: (Int) async throws -> Result) async throws -> Result {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        return try await body(try bindAnyPort(descriptor, listening: true))
    }

    /// Binds `descriptor` to a port of 127.0.0.1 the kernel picks (and listens on it when
    /// `listening`); returns the port.
    private static func bindAnyPort(_ descriptor: Int32, listening: Bool) throws -> Int {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && (!listening || listen(descriptor, 1) == 0)
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else {
            throw LoopbackPortError(
                description: "no loopback port to \(listening ? "listen on" : "bind"): errno \(errno)")
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

public struct LoopbackPortError: Error, CustomStringConvertible {
    public var description: String
}
