import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A UNIX file descriptor that closes itself when the last reference goes away. Two values are
/// equal only when they are the same object.
///
/// Descriptors received in a message are owned by the `DBusUnixFD` that wraps them; call
/// ``take()`` to move ownership out (the caller then closes the descriptor). To send a
/// descriptor you keep owning, use ``init(borrowing:)``: libdbus duplicates it while marshalling.
public final class DBusUnixFD: Sendable, Hashable, CustomStringConvertible {
    private let state: Mutex<(fd: Int32, owned: Bool)>

    /// Wraps `fd` and closes it on deinit.
    public init(owning fd: Int32) {
        state = Mutex((fd, true))
    }

    /// Wraps `fd` without owning it: the caller keeps it open for as long as this value is used.
    public init(borrowing fd: Int32) {
        state = Mutex((fd, false))
    }

    /// The descriptor number, or -1 after ``take()``.
    public var fileDescriptor: Int32 {
        state.withLock { $0.fd }
    }

    /// Moves ownership of the descriptor to the caller, who must close it. Returns -1 when it
    /// was already taken.
    public func take() -> Int32 {
        state.withLock { state in
            let fd = state.fd
            state = (-1, false)
            return fd
        }
    }

    deinit {
        let (fd, owned) = state.withLock { $0 }
        if owned && fd >= 0 {
            close(fd)
        }
    }

    public static func == (lhs: DBusUnixFD, rhs: DBusUnixFD) -> Bool {
        lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    public var description: String {
        "fd \(fileDescriptor)"
    }
}
