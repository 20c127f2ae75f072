import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why a server could not listen where it was told, in words for the person who chose the
/// address (`--metrics`, `rollout serve --listen`): the errors NIO throws from `bind` name its
/// own functions and types, which say nothing to them.
public enum ListenFailure {
    /// What went wrong and what to try, for a failure to listen.
    public static func reason(_ error: any Error) -> String {
        switch error {
        case let error as IOError where error.errnoCode == EADDRINUSE:
            return "the port is in use by another program; choose another port (or 0 for any free one)"
        case let error as IOError where error.errnoCode == EADDRNOTAVAIL:
            return "it is not an address of this machine; use one of its own addresses, e.g. 127.0.0.1"
        case let error as IOError where error.errnoCode == EACCES:
            return "a port below 1024 needs root or CAP_NET_BIND_SERVICE; choose a port from 1024 on"
        case let error as IOError:
            return
                "\(String(cString: strerror(error.errnoCode))); choose a free port on an address of this machine"
        case let error as SocketAddressError.UnknownHost:
            return
                "the host name \(error.host) is unknown (\(error.errorDescription)); give an address of this machine, e.g. 127.0.0.1"
        default:
            return "\(error); choose a free port on an address of this machine"
        }
    }
}
