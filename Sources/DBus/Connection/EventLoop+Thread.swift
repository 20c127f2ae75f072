import CDBus

/// The loop thread's own work: rounds of jobs and dispatch between polls, and the shutdown.
extension EventLoop {
    /// How many rounds of jobs and dispatch run back to back before the loop polls its
    /// descriptors again.
    private static let roundsBeforePolling = 16

    func run() {
        guard let connection else { return }
        while true {
            // Jobs and dispatched messages queue more jobs (a resumed task hops back here); run
            // those too before polling, a bounded number of rounds so that I/O is not starved.
            var rounds = 0
            repeat {
                runJobs(connection)
                while dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
                    dbus_connection_dispatch(connection)
                }
                rounds += 1
            } while rounds < Self.roundsBeforePolling && hasJobs
            if dbus_connection_get_is_connected(connection) == 0 {
                break
            }
            waitAndHandleIO()
        }
        shutDown(connection)
    }

    private func runJobs(_ connection: OpaquePointer) {
        var batch: [Work] = []
        swap(&batch, &spareQueue)
        jobs.withLock { swap(&batch, &$0.queue) }
        for work in batch {
            run(work, on: connection)
        }
        batch.removeAll(keepingCapacity: true)
        spareQueue = batch
    }

    private func shutDown(_ connection: OpaquePointer) {
        let leftover = jobs.withLock { jobs in
            jobs.closed = true
            defer { jobs.queue.removeAll() }
            return jobs.queue
        }
        for work in leftover {
            run(work, on: nil)
        }
        // nothing polls the watched descriptors any more: their watches end as in a hang-up
        let watched = watchedDescriptors.values
        watchedDescriptors = [:]
        for watch in watched { _ = watch.readable(true) }
        dbus_connection_close(connection)
        // Dropping the last reference frees the watches and timeouts and calls the free
        // functions, which release this loop's self-references.
        dbus_connection_unref(connection)
        self.connection = nil
        closePipe()
    }
}
