/// The chunks of one image upload in flight and what each answer means for the next chunk: a
/// pure decision value that the upload loop (`SMPImageUpload`) follows.
///
/// A Zephyr server writes a chunk only at the offset it expects and answers every chunk with the
/// offset it expects next (docs/mcumgr.md). So an answer naming another offset than its chunk's
/// end says a chunk before it was lost: the upload goes back to that offset. Chunks sent before
/// that rewind are answered with the same offset; those answers are stale and steer nothing.
struct SMPUploadWindow: Sendable {
    /// What one answer told.
    enum Answer: Equatable {
        /// The device wrote the chunk.
        case accepted
        /// The device expects another offset: the upload goes on from `offset`.
        case rewound(to: Int)
        /// The device did not take the chunk at the offset it expects (a Bare Metal firmware
        /// loader's full image buffer answers success and the offset unchanged): it goes again.
        case busy(at: Int)
        /// An answer to a chunk sent before the last rewind.
        case stale
        /// No chunk in flight has this sequence number.
        case unknown
    }

    private struct Sent {
        var offset: Int
        var count: Int
        var generation: Int
        /// Counts chunks sent: the device answers them in this order.
        var order: Int
    }

    /// The file's length.
    let length: Int
    /// Chunks in flight at most.
    let capacity: Int
    /// The offset of the next chunk to send.
    private(set) var nextOffset: Int
    /// The bytes the device holds, from its answers.
    private(set) var confirmed: Int
    private var inFlight: [UInt8: Sent] = [:]
    /// Counts rewinds; chunks carry the count they were sent under.
    private var generation = 0
    private var sentCount = 0

    /// An upload of `length` bytes of which the device holds `offset`.
    init(length: Int, capacity: Int, from offset: Int) {
        self.length = length
        self.capacity = max(1, capacity)
        nextOffset = offset
        confirmed = offset
    }

    /// Whether another chunk may be sent now.
    var canSend: Bool { inFlight.count < capacity && nextOffset < length }
    /// Whether chunks wait for their answers.
    var hasChunksInFlight: Bool { !inFlight.isEmpty }
    /// Whether the one chunk in flight is the file's last: no later answer can tell it was lost.
    var onlyTheLastChunkInFlight: Bool { inFlight.count == 1 && nextOffset >= length }
    /// Whether the device holds the whole file.
    var isComplete: Bool { confirmed >= length }

    /// A chunk of `count` bytes at `nextOffset` went out as `sequence`.
    mutating func sent(sequence: UInt8, count: Int) {
        inFlight[sequence] = Sent(offset: nextOffset, count: count, generation: generation, order: sentCount)
        sentCount += 1
        nextOffset += count
    }

    /// The device answered `sequence` expecting `expectedOffset` next.
    mutating func answered(sequence: UInt8, expectedOffset: Int) -> Answer {
        guard let chunk = inFlight.removeValue(forKey: sequence) else { return .unknown }
        // The device answers in order: a chunk sent before this one and not answered was lost.
        inFlight = inFlight.filter { $0.value.order > chunk.order }
        confirmed = max(confirmed, min(expectedOffset, length))
        guard chunk.generation == generation else { return .stale }
        if expectedOffset == chunk.offset + chunk.count { return .accepted }
        rewind(to: expectedOffset)
        return expectedOffset == chunk.offset ? .busy(at: expectedOffset) : .rewound(to: expectedOffset)
    }

    /// The device holds the whole file (its image list shows it), whatever answers are missing.
    mutating func completed() {
        inFlight.removeAll()
        confirmed = length
        nextOffset = length
    }

    /// No answer came in time: the chunks in flight are taken as lost, and the upload goes on
    /// from what the device last said it holds.
    mutating func answersLost() {
        inFlight.removeAll()
        rewind(to: confirmed)
    }

    private mutating func rewind(to offset: Int) {
        generation += 1
        nextOffset = min(max(offset, 0), length)
    }
}
