import Foundation

/// Loopback ports for servers a test starts (Prometheus, a command's `--metrics`).
public enum LoopbackPort {
    /// A port no one listens on now (the kernel's pick for a socket bound to port 0).
    public static func free() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw LoopbackPortError(description: "no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A loopback port this process listens on until `body` returns: a port in use, as another
    /// program would hold it.
    public static func occupied<Result>(_ body: (Int) async throws -> Result) async throws -> Result {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && listen(descriptor, 1) == 0
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard listening else { throw LoopbackPortError(description: "cannot listen: errno \(errno)") }
        return try await body(Int(UInt16(bigEndian: address.sin_port)))
    }
}

public struct LoopbackPortError: Error, CustomStringConvertible {
    public var description: String
}
