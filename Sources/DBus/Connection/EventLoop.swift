import CDBus
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one thread that drives a connection: it polls the connection's watches and an eventfd,
/// fires libdbus timeouts, runs jobs posted from other threads and dispatches received
/// messages. Other threads wake it through a pipe. Every libdbus call that can do I/O on the connection runs on this thread, so the
/// watches libdbus hands out are only ever added, removed or freed here.
final class EventLoop: @unchecked Sendable {
    /// Work for the loop thread; called with nil when the connection is already gone.
    typealias Job = @Sendable (OpaquePointer?) -> Void

    private struct Jobs {
        var queue: [Job] = []
        var closed = false
        /// The wake-up pipe is closed as soon as the loop ends, not when the last reference goes.
        var pipeClosed = false
    }

    private let jobs = Mutex(Jobs())
    /// Read and write ends of the wake-up pipe.
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    /// Set on the loop thread before any job runs; read only there.
    private var connection: OpaquePointer?
    /// The connection's watches, enabled or not, and its enabled timeouts with their deadlines
    /// (monotonic ns). Touched only by libdbus callbacks and the loop, both on the loop thread.
    private var watches: Set<OpaquePointer> = []
    private var timeouts: [OpaquePointer: UInt64] = [:]

    /// A loop that is not running yet; see ``start(open:setup:stopped:)``.
    init() throws(DBusError) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            throw .connectionFailed(name: DBusError.Name.failed, message: "pipe failed: errno \(errno)")
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        wakeFD = pipeEnds[0]
        wakeWriteFD = pipeEnds[1]
    }

    deinit {
        closePipe()
    }

    private func closePipe() {
        jobs.withLock { jobs in
            guard !jobs.pipeClosed else { return }
            jobs.pipeClosed = true
            close(wakeFD)
            close(wakeWriteFD)
        }
    }

    /// Starts the loop thread, opens the connection there with `open` (which may block), runs
    /// `setup` on it and returns once both are done. The thread then runs until the connection
    /// is closed or lost, and calls `stopped` last. Call once.
    func start(
        open: @escaping @Sendable () throws(DBusError) -> OpaquePointer,
        setup: @escaping @Sendable (OpaquePointer) -> Void,
        stopped: @escaping @Sendable () -> Void
    ) async throws(DBusError) {
        let loop = self
        let result: Result<Void, DBusError> = await withCheckedContinuation { continuation in
            let start = ThreadStart {
                let connection: OpaquePointer
                do throws(DBusError) {
                    connection = try open()
                } catch {
                    loop.jobs.withLock { $0.closed = true }
                    loop.closePipe()
                    continuation.resume(returning: .failure(error))
                    return
                }
                loop.install(on: connection)
                setup(connection)
                continuation.resume(returning: .success(()))
                loop.run()
                stopped()
            }
            var thread = pthread_t()
            let context = Unmanaged.passRetained(start).toOpaque()
            let created = pthread_create(
                &thread, nil,
                { context in
                    Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue().body()
                    return nil
                }, context)
            if created != 0 {
                Unmanaged<ThreadStart>.fromOpaque(context).release()
                continuation.resume(
                    returning: .failure(
                        .connectionFailed(
                            name: DBusError.Name.failed, message: "pthread_create failed: \(created)")))
            } else {
                pthread_detach(thread)
            }
        }
        try result.get()
    }

    /// Runs `body` on the loop thread and returns its result.
    func perform<T: Sendable>(_ body: @escaping @Sendable (OpaquePointer) throws(DBusError) -> T)
        async throws(DBusError) -> T
    {
        let result: Result<T, DBusError> = await withCheckedContinuation { continuation in
            enqueue { connection in
                guard let connection else {
                    continuation.resume(returning: .failure(.disconnected("the D-Bus connection is closed")))
                    return
                }
                do throws(DBusError) {
                    continuation.resume(returning: .success(try body(connection)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Runs `job` on the loop thread, or right here with nil when the loop has stopped.
    func enqueue(_ job: @escaping Job) {
        let accepted = jobs.withLock { jobs in
            if jobs.closed { return false }
            jobs.queue.append(job)
            if jobs.queue.count == 1 {
                wake()
            }
            return true
        }
        if !accepted {
            job(nil)
        }
    }

    /// Call with the jobs lock held and the pipe open.
    private func wake() {
        var one: UInt8 = 1
        _ = write(wakeWriteFD, &one, 1)
    }

    // MARK: Loop thread

    private func install(on connection: OpaquePointer) {
        self.connection = connection
        let addWatch: DBusAddWatchFunction = { watch, data in
            EventLoop.from(data).watches.insert(watch!)
            return 1
        }
        let removeWatch: DBusRemoveWatchFunction = { watch, data in
            EventLoop.from(data).watches.remove(watch!)
        }
        // Enabled state is read at every poll, so a toggle needs no bookkeeping.
        let toggleWatch: DBusWatchToggledFunction = { _, _ in }
        let addTimeout: DBusAddTimeoutFunction = { timeout, data in
            EventLoop.from(data).arm(timeout!)
            return 1
        }
        let removeTimeout: DBusRemoveTimeoutFunction = { timeout, data in
            EventLoop.from(data).timeouts[timeout!] = nil
        }
        let toggleTimeout: DBusTimeoutToggledFunction = { timeout, data in
            EventLoop.from(data).arm(timeout!)
        }
        let wakeup: DBusWakeupMainFunction = { data in
            let loop = EventLoop.from(data)
            loop.jobs.withLock { jobs in
                if !jobs.pipeClosed { loop.wake() }
            }
        }
        let release: DBusFreeFunction = { data in
            Unmanaged<EventLoop>.fromOpaque(data!).release()
        }
        dbus_connection_set_watch_functions(
            connection, addWatch, removeWatch, toggleWatch, retainedSelf(), release)
        dbus_connection_set_timeout_functions(
            connection, addTimeout, removeTimeout, toggleTimeout, retainedSelf(), release)
        dbus_connection_set_wakeup_main_function(connection, wakeup, retainedSelf(), release)
    }

    private func retainedSelf() -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(self).toOpaque()
    }

    private static func from(_ data: UnsafeMutableRawPointer?) -> EventLoop {
        Unmanaged<EventLoop>.fromOpaque(data!).takeUnretainedValue()
    }

    private func arm(_ timeout: OpaquePointer) {
        let deadline: UInt64? =
            dbus_timeout_get_enabled(timeout) != 0
            ? Self.now() + UInt64(max(0, dbus_timeout_get_interval(timeout))) * 1_000_000 : nil
        timeouts[timeout] = deadline
    }

    private static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    private func run() {
        guard let connection else { return }
        while true {
            runJobs(connection)
            while dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
                dbus_connection_dispatch(connection)
            }
            if dbus_connection_get_is_connected(connection) == 0 {
                break
            }
            waitAndHandleIO()
        }
        shutDown(connection)
    }

    private func runJobs(_ connection: OpaquePointer) {
        let batch = jobs.withLock { jobs in
            defer { jobs.queue.removeAll(keepingCapacity: true) }
            return jobs.queue
        }
        for job in batch {
            job(connection)
        }
    }

    private func waitAndHandleIO() {
        let watched = watches.filter { dbus_watch_get_enabled($0) != 0 }
        var descriptors = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        for watch in watched {
            let flags = dbus_watch_get_flags(watch)
            var events: Int32 = 0
            if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= POLLIN }
            if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= POLLOUT }
            descriptors.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: Int16(events), revents: 0))
        }
        let nextDeadline = timeouts.values.min()
        var wait: Int32 = -1
        if let nextDeadline {
            let now = Self.now()
            wait = nextDeadline <= now ? 0 : Int32(clamping: (nextDeadline - now + 999_999) / 1_000_000)
        }
        let ready = poll(&descriptors, nfds_t(descriptors.count), wait)
        if ready > 0 {
            if descriptors[0].revents != 0 {
                var drain = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
                while read(wakeFD, &drain, 32) == 32 {}
            }
            for (index, watch) in watched.enumerated() {
                let events = Int32(descriptors[index + 1].revents)
                if events == 0 { continue }
                // An earlier handler in this round may have removed or disabled the watch.
                guard watches.contains(watch), dbus_watch_get_enabled(watch) != 0 else { continue }
                var flags: UInt32 = 0
                if events & POLLIN != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
                if events & POLLOUT != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
                if events & POLLERR != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
                if events & POLLHUP != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
                dbus_watch_handle(watch, flags)
            }
        }
        fireExpiredTimeouts()
    }

    private func fireExpiredTimeouts() {
        let now = Self.now()
        let expired = timeouts.filter { $0.value <= now }.map(\.key)
        for timeout in expired {
            guard timeouts[timeout] != nil else { continue }
            // libdbus timeouts repeat until removed; re-arm before handling in case it re-toggles.
            arm(timeout)
            dbus_timeout_handle(timeout)
        }
    }

    private func shutDown(_ connection: OpaquePointer) {
        let leftover = jobs.withLock { jobs in
            jobs.closed = true
            defer { jobs.queue.removeAll() }
            return jobs.queue
        }
        for job in leftover {
            job(nil)
        }
        dbus_connection_close(connection)
        // Dropping the last reference frees the watches and timeouts and calls the free
        // functions, which release this loop's self-references.
        dbus_connection_unref(connection)
        self.connection = nil
        closePipe()
    }
}

/// The body of a new thread, passed through `pthread_create`'s context pointer.
private final class ThreadStart {
    let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
    }
}
