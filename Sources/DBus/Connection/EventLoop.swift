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

    /// What the queue holds: a job, or a task's job (the loop as a `TaskExecutor`) as it is, so
    /// that a task's hop to this thread costs no closure.
    enum Work: Sendable {
        case job(Job)
        case task(UnownedJob)
    }

    struct Jobs {
        var queue: [Work] = []
        var closed = false
        /// The wake-up pipe is closed as soon as the loop ends, not when the last reference goes.
        var pipeClosed = false
    }

    let jobs = Mutex(Jobs())
    /// Read and write ends of the wake-up pipe.
    let wakeFD: Int32
    private let wakeWriteFD: Int32
    /// Set on the loop thread before any job runs; read only there.
    var connection: OpaquePointer?
    /// The connection's watches, enabled or not, and its enabled timeouts with their deadlines
    /// (monotonic ns). Touched only by libdbus callbacks and the loop, both on the loop thread.
    var watches: Set<OpaquePointer> = []
    var timeouts: [OpaquePointer: UInt64] = [:]
    /// Descriptors polled for others (`DescriptorWatch`), by watch id; touched only on the loop
    /// thread.
    var watchedDescriptors: [Int: (fd: Int32, readable: DescriptorWatch.Handler)] = [:]
    let nextDescriptorID = Atomic(0)
    /// The loop thread (`pthread_self`), once it runs: a job it queues itself needs no wake-up.
    private let loopThread = Atomic<UInt>(0)
    /// The queue's second buffer, swapped with it for each batch (loop thread only): both keep
    /// their capacity, so that a round of jobs allocates nothing.
    var spareQueue: [Work] = []
    /// What the last poll asked for, kept for their capacity (loop thread only): the poll's
    /// descriptors (the wake-up pipe, then the enabled watches, then the watched descriptors),
    /// the watches polled and the ids of the watched descriptors polled, in that order.
    var polled: [pollfd] = []
    var polledWatches: [OpaquePointer] = []
    var polledDescriptorIDs: [Int] = []

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

    func closePipe() {
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
                loop.loopThread.store(UInt(pthread_self()), ordering: .releasing)
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
        enqueue(.job(job))
    }

    /// Runs `work` on the loop thread; when the loop has stopped, a job right here with nil and
    /// a task on the global executor.
    func enqueue(_ work: Work) {
        let accepted = jobs.withLock { jobs in
            if jobs.closed { return false }
            jobs.queue.append(work)
            // the loop thread runs what it queued itself before it polls again
            if jobs.queue.count == 1 && !isLoopThread {
                wake()
            }
            return true
        }
        if !accepted {
            run(work, on: nil)
        }
    }

    func run(_ work: Work, on connection: OpaquePointer?) {
        switch work {
        case .job(let job): job(connection)
        case .task(let job):
            if connection == nil {
                globalConcurrentExecutor.enqueue(ExecutorJob(job))
            } else {
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }

    var isLoopThread: Bool { loopThread.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Whether jobs wait to run: the loop then polls without blocking.
    var hasJobs: Bool { jobs.withLock { !$0.queue.isEmpty } }

    /// Call with the jobs lock held and the pipe open.
    func wake() {
        var one: UInt8 = 1
        _ = write(wakeWriteFD, &one, 1)
    }
}

/// The body of a new thread, passed through `pthread_create`'s context pointer.
private final class ThreadStart {
    let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
    }
}
