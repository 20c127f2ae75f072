/// The device's flash and the buffers that wait for it (docs/simulator.md, "Link and flash model").
///
/// Flash operations (page erases, writes) run one after another. Two limits decide when an
/// SDK 15–17 Secure bootloader loses a packet, as its sources do:
/// - the BLE transport's buffer pool (`nrf_dfu_ble.c`, `MAX_DFU_BUFFERS`): every packet write
///   takes a buffer, held until its data is in flash; with none free, `on_write` drops the write
///   before the request handler sees it (so it does not count for the PRN);
/// - the flash operation queue (`nrf_fstorage_sd.c`, `NRF_FSTORAGE_SD_QUEUE_SIZE`, the operation
///   in progress included): when it is full, `nrf_dfu_flash_store` fails and
///   `on_data_obj_write_request` drops the data without moving the offset (the write still counts
///   for the PRN).
struct FlashQueue {
    /// Why a data packet was not written.
    enum Loss: Equatable {
        /// No transport buffer was free.
        case noBuffer
        /// The flash operation queue was full.
        case queueFull
    }

    let packetBuffers: Int
    let operationLimit: Int
    /// When the last queued operation completes.
    private(set) var busyUntil: Nanoseconds = 0
    /// Completion times of the queued operations, oldest first.
    private var operations: [Nanoseconds] = []
    /// When the buffers that hold data waiting for flash are released, oldest first.
    private var heldBuffers: [Nanoseconds] = []

    init(packetBuffers: Int, operationLimit: Int) {
        self.packetBuffers = packetBuffers
        self.operationLimit = operationLimit
    }

    /// Queues an operation that holds no packet buffer (an erase, a settings write, a Legacy
    /// bootloader's write) taking `duration`, starting no earlier than `time`.
    mutating func perform(taking duration: Nanoseconds, at time: Nanoseconds) {
        forgetCompleted(before: time)
        busyUntil = max(busyUntil, time) + duration
        operations.append(busyUntil)
    }

    /// Whether a packet write arriving at `time` finds a free transport buffer.
    mutating func hasFreeBuffer(at time: Nanoseconds) -> Bool {
        forgetCompleted(before: time)
        return heldBuffers.count < packetBuffers
    }

    /// Queues the flash write of a data packet arriving at `time`; the loss if it is dropped.
    mutating func writePacket(taking duration: Nanoseconds, at time: Nanoseconds) -> Loss? {
        guard hasFreeBuffer(at: time) else { return .noBuffer }
        guard operations.count < operationLimit else { return .queueFull }
        perform(taking: duration, at: time)
        heldBuffers.append(busyUntil)
        return nil
    }

    /// The first time after `time` at which a queued operation completes (and may free a buffer
    /// or a queue entry); nil when the flash is idle by then.
    func nextCompletion(after time: Nanoseconds) -> Nanoseconds? {
        operations.first { $0 > time }
    }

    /// Forgets queued work (the device reset).
    mutating func reset(at time: Nanoseconds) {
        busyUntil = time
        operations.removeAll()
        heldBuffers.removeAll()
    }

    private mutating func forgetCompleted(before time: Nanoseconds) {
        if let done = operations.firstIndex(where: { $0 > time }) {
            operations.removeFirst(done)
        } else {
            operations.removeAll(keepingCapacity: true)
        }
        heldBuffers.removeAll { $0 <= time }
    }
}
