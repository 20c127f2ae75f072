/// A descriptor the connection's thread polls along with its own, e.g. a socket whose data the
/// tasks on ``DBusConnection/taskExecutor`` take (no thread of its own to wake, then hand over).
public struct DescriptorWatch: Sendable {
    /// `readable(hungUp)` runs on the connection's thread whenever the descriptor has data to
    /// read (level-triggered: what it leaves unread comes again) and once more, with `true`,
    /// when it hangs up. It returns whether to go on watching; after a hang-up the watch ends
    /// anyway.
    public typealias Handler = @Sendable (_ hungUp: Bool) -> Bool

    let id: Int
    let loop: EventLoop

    /// Stops watching (on the connection's thread, soon after). The handler is not called again
    /// once the loop has taken this in.
    public func cancel() {
        // (once the loop has stopped, its descriptors are gone already)
        loop.enqueue { [loop, id] connection in
            if connection != nil { loop.watchedDescriptors[id] = nil }
        }
    }
}

extension DBusConnection {
    /// Polls `descriptor` on this connection's thread until it hangs up or the watch is
    /// cancelled; the caller keeps the descriptor open meanwhile. When the connection has
    /// ended, `readable(true)` runs at once.
    public func watchReadable(_ descriptor: Int32, _ readable: @escaping DescriptorWatch.Handler)
        -> DescriptorWatch
    {
        let id = loop.nextDescriptorID.add(1, ordering: .relaxed).newValue
        loop.enqueue { [loop] connection in
            guard connection != nil else {
                _ = readable(true)
                return
            }
            loop.watchedDescriptors[id] = (descriptor, readable)
        }
        return DescriptorWatch(id: id, loop: loop)
    }
}
