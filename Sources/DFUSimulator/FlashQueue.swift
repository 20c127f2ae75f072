/// When the device's flash finishes what it was asked to do (docs/simulator.md, "Flash model").
///
/// Flash operations run one after another. Received data packets wait in a queue of
/// `depth` buffers until written; a packet that arrives while every buffer is taken is dropped
/// without an error, as the SDK 15–17 bootloader's BLE transport does when its buffer pool is
/// empty (typically right after Create, while the object's page is being erased).
struct FlashQueue {
    let depth: Int
    /// When the last queued operation completes.
    private(set) var busyUntil: Nanoseconds = 0
    /// Completion times of the packet writes still queued, oldest first.
    private var pendingWrites: [Nanoseconds] = []

    init(depth: Int) {
        self.depth = depth
        pendingWrites.reserveCapacity(depth)
    }

    /// Queues an operation outside the packet buffers (an erase, a settings write) that takes
    /// `duration`, starting no earlier than `time`.
    mutating func perform(taking duration: Nanoseconds, at time: Nanoseconds) {
        busyUntil = max(busyUntil, time) + duration
    }

    /// Queues a packet write arriving at `time`; false if it was dropped because the queue is full.
    mutating func write(taking duration: Nanoseconds, at time: Nanoseconds) -> Bool {
        pendingWrites.removeAll { $0 <= time }
        guard pendingWrites.count < depth else { return false }
        busyUntil = max(busyUntil, time) + duration
        pendingWrites.append(busyUntil)
        return true
    }

    /// Forgets queued work (the device reset).
    mutating func reset(at time: Nanoseconds) {
        busyUntil = time
        pendingWrites.removeAll()
    }
}
