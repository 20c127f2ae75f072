import CDBus
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Which bus to connect to.
public enum DBusBus: Sendable, Hashable {
    /// The system bus (bluetoothd's); `DBUS_SYSTEM_BUS_ADDRESS` overrides its address.
    case system
    /// The session bus of `DBUS_SESSION_BUS_ADDRESS`.
    case session
    /// A bus at a D-Bus address such as `unix:path=/tmp/test-bus`.
    case address(String)
}

/// A private connection to a message bus, driven by its own event-loop thread.
///
/// Every method is safe to call from any thread or task. Method handlers and signal streams
/// are fed from the loop thread without blocking it. Closing (or dropping the last reference)
/// ends the connection: pending calls fail with ``DBusError/disconnected(_:)``, signal
/// streams finish and ``disconnected`` fires.
public final class DBusConnection: Sendable {
    /// libdbus's default call timeout.
    public static let defaultTimeout = Duration.seconds(25)

    /// This connection's unique bus name, e.g. `:1.42`.
    public let uniqueName: String
    /// Whether UNIX file descriptors (`h`) can be sent on this connection.
    public let canPassFileDescriptors: Bool

    let loop: EventLoop

    /// The connection's own thread, as an executor for tasks: a task that prefers it (e.g.
    /// `Task(executorPreference: connection.taskExecutor)`) takes replies and signals on the
    /// thread that read them. Its work must not block for long: the connection waits meanwhile.
    public var taskExecutor: any TaskExecutor { loop }
    let router: SignalRouter
    let objects: ObjectRegistry
    let pendingCalls: PendingCallTable
    private let lifecycle: Lifecycle

    private init(
        loop: EventLoop, router: SignalRouter, objects: ObjectRegistry, pendingCalls: PendingCallTable,
        lifecycle: Lifecycle, uniqueName: String, canPassFileDescriptors: Bool
    ) {
        self.loop = loop
        self.pendingCalls = pendingCalls
        self.router = router
        self.objects = objects
        self.lifecycle = lifecycle
        self.uniqueName = uniqueName
        self.canPassFileDescriptors = canPassFileDescriptors
    }

    deinit {
        close()
    }

    /// Opens a private connection to `bus` and registers on it (Hello).
    public static func connect(to bus: DBusBus) async throws(DBusError) -> DBusConnection {
        _ = threadsInitialised
        let loop = try EventLoop()
        let router = SignalRouter()
        let objects = ObjectRegistry()
        let lifecycle = Lifecycle()
        let pendingCalls = PendingCallTable()
        let incoming = IncomingMessages(router: router, objects: objects, loop: loop)
        try await loop.start(
            open: { () throws(DBusError) in try open(bus) },
            setup: { connection in incoming.install(on: connection) },
            stopped: {
                pendingCalls.failAll()
                router.finishAll()
                objects.removeAll()
                lifecycle.end()
            })
        let (name, fds) = try await loop.perform { connection in
            (
                dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? "",
                dbus_connection_can_send_type(connection, TypeCode.unixFD) != 0
            )
        }
        return DBusConnection(
            loop: loop, router: router, objects: objects, pendingCalls: pendingCalls, lifecycle: lifecycle,
            uniqueName: name, canPassFileDescriptors: fds)
    }

    /// Closes the connection. Returns at once; ``waitUntilDisconnected()`` waits for the end.
    public func close() {
        loop.enqueue { connection in
            if let connection {
                dbus_connection_close(connection)
            }
        }
    }

    /// False once the connection was closed or lost.
    public var isConnected: Bool {
        !lifecycle.hasEnded
    }

    /// Yields once and finishes when the connection is closed or lost (at once if it already
    /// was). Each access gives a new stream.
    public var disconnected: AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        lifecycle.onEnd {
            continuation.yield()
            continuation.finish()
        }
        return stream
    }

    /// Suspends until the connection is closed or lost.
    public func waitUntilDisconnected() async {
        for await _ in disconnected {}
    }

    private static let threadsInitialised: Bool = dbus_threads_init_default() != 0

    private static func open(_ bus: DBusBus) throws(DBusError) -> OpaquePointer {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        var connection: OpaquePointer?
        // libdbus reads the bus address variables once per process and caches them; reading
        // them here on every connect lets tests point each connection at their own daemon.
        let address: String?
        switch bus {
        case .system: address = environment("DBUS_SYSTEM_BUS_ADDRESS")
        case .session: address = environment("DBUS_SESSION_BUS_ADDRESS")
        case .address(let given): address = given
        }
        if let address {
            connection = dbus_connection_open_private(address, &error)
            if let opened = connection {
                // A private bus connection must say Hello before it has a name.
                dbus_connection_set_exit_on_disconnect(opened, 0)
                if dbus_bus_register(opened, &error) == 0 {
                    dbus_connection_close(opened)
                    dbus_connection_unref(opened)
                    connection = nil
                }
            }
        } else {
            connection = dbus_bus_get_private(bus == .system ? DBUS_BUS_SYSTEM : DBUS_BUS_SESSION, &error)
        }
        guard let connection else {
            let name = error.name.map { String(cString: $0) } ?? DBusError.Name.failed
            let message = error.message.map { String(cString: $0) } ?? "could not connect"
            let target =
                address.map { "the bus at \($0)" } ?? "the \(bus == .system ? "system" : "session") bus"
            throw .connectionFailed(name: name, message: "\(target): \(message)")
        }
        // A lost bus must not end the process (dbus_bus_get* turns this on).
        dbus_connection_set_exit_on_disconnect(connection, 0)
        return connection
    }
}

private func environment(_ name: String) -> String? {
    guard let value = getenv(name), value.pointee != 0 else { return nil }
    return String(cString: value)
}

/// Whether the connection has ended, and who wants to hear about it.
private final class Lifecycle: Sendable {
    private let state = Mutex<(ended: Bool, waiters: [@Sendable () -> Void])>((false, []))

    var hasEnded: Bool {
        state.withLock { $0.ended }
    }

    func onEnd(_ waiter: @escaping @Sendable () -> Void) {
        let endedAlready = state.withLock { state in
            if !state.ended { state.waiters.append(waiter) }
            return state.ended
        }
        if endedAlready { waiter() }
    }

    func end() {
        let waiters = state.withLock { state in
            state.ended = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter() }
    }
}
