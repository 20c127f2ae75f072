import CDBus

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The connection's watches and timeouts: libdbus registers them through callbacks, the loop
/// polls the watches with its wake-up pipe and fires the timeouts that are due.
extension EventLoop {
    func install(on connection: OpaquePointer) {
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
            // on the loop thread itself the loop looks again before it polls
            guard !loop.isLoopThread else { return }
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

    func waitAndHandleIO() {
        polled.removeAll(keepingCapacity: true)
        polledWatches.removeAll(keepingCapacity: true)
        polledDescriptorIDs.removeAll(keepingCapacity: true)
        polled.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
        for watch in watches where dbus_watch_get_enabled(watch) != 0 {
            let flags = dbus_watch_get_flags(watch)
            var events: Int32 = 0
            if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= POLLIN }
            if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= POLLOUT }
            polledWatches.append(watch)
            polled.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: Int16(events), revents: 0))
        }
        for (id, watched) in watchedDescriptors {
            polledDescriptorIDs.append(id)
            polled.append(pollfd(fd: watched.fd, events: Int16(POLLIN), revents: 0))
        }
        let nextDeadline = timeouts.values.min()
        var wait: Int32 = -1
        if hasJobs {
            wait = 0
        } else if let nextDeadline {
            let now = Self.now()
            wait = nextDeadline <= now ? 0 : Int32(clamping: (nextDeadline - now + 999_999) / 1_000_000)
        }
        let ready = poll(&polled, nfds_t(polled.count), wait)
        if ready > 0 {
            if polled[0].revents != 0 {
                var drain = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
                while read(wakeFD, &drain, 32) == 32 {}
            }
            for (index, watch) in polledWatches.enumerated() {
                let events = Int32(polled[index + 1].revents)
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
            handOverPolledDescriptors()
        }
        fireExpiredTimeouts()
    }

    /// Calls the handlers of the watched descriptors that polled ready; a hang-up ends the watch.
    private func handOverPolledDescriptors() {
        let first = 1 + polledWatches.count
        for (index, id) in polledDescriptorIDs.enumerated() {
            let events = polled[first + index].revents
            // a handler earlier in this round may have cancelled it
            guard events != 0, let watch = watchedDescriptors[id] else { continue }
            let hungUp = events & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
            if !watch.readable(hungUp) || hungUp { watchedDescriptors[id] = nil }
        }
    }

    private func fireExpiredTimeouts() {
        let now = Self.now()
        guard timeouts.values.contains(where: { $0 <= now }) else { return }
        let expired = timeouts.filter { $0.value <= now }.map(\.key)
        for timeout in expired {
            guard timeouts[timeout] != nil else { continue }
            // libdbus timeouts repeat until removed; re-arm before handling in case it re-toggles.
            arm(timeout)
            dbus_timeout_handle(timeout)
        }
    }
}
