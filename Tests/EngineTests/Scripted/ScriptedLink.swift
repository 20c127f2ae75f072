import DFUSupport
import GATT

/// The device side of a scripted bootloader: what it answers to each write.
protocol ScriptedBootloader: Sendable {
    /// Notifications the device sends for a control-point write, in order.
    mutating func controlPoint(_ bytes: [UInt8]) -> [[UInt8]]
    /// Notifications the device sends for a packet write, in order.
    mutating func packet(_ bytes: [UInt8]) -> [[UInt8]]
    /// Whether the device resets (drops the link) after its last answer.
    var resets: Bool { get }
}

/// One link to a scripted bootloader whose notifications lag the client's writes: every
/// notification the device sends is held "in flight" until the client writes the next
/// control-point request (then it arrives before that request's answer) or has written
/// nothing for `quietPeriod` (real time; a client that waits gets them). So the receipts for a
/// burst of packets usually reach the client after its next request, as they can on a radio.
/// The exact orders are pinned by `ControlPointChannelTests`; this link runs whole updates.
final class ScriptedLink<Bootloader: ScriptedBootloader>: Sendable {
    private struct State {
        var bootloader: Bootloader
        var inFlight: [[UInt8]] = []
        var subscriber: AsyncThrowingStream<[UInt8], any Error>.Continuation?
        var writes = 0
        var connected = true
        var requests: [[UInt8]] = []
    }

    private let state: Locked<State>
    private let quietPeriod: Duration

    init(_ bootloader: Bootloader, quietPeriod: Duration = .milliseconds(5)) {
        state = Locked(State(bootloader: bootloader))
        self.quietPeriod = quietPeriod
    }

    /// Every control-point request the client wrote, in order.
    var requests: [[UInt8]] { state.withLock { $0.requests } }
    var bootloader: Bootloader { state.withLock { $0.bootloader } }
    var isConnected: Bool { state.withLock { $0.connected } }

    func subscribe() -> AsyncThrowingStream<[UInt8], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: [UInt8].self, throwing: (any Error).self)
        state.withLock { $0.subscriber = continuation }
        return stream
    }

    func writeControlPoint(_ bytes: [UInt8]) throws {
        try write { state in
            state.requests.append(bytes)
            Self.release(&state)
            return state.bootloader.controlPoint(bytes)
        }
    }

    func writePacket(_ bytes: [UInt8]) throws {
        try write { state in state.bootloader.packet(bytes) }
    }

    func disconnect() {
        state.withLock { state in
            state.connected = false
            state.subscriber?.finish(
                throwing: GATTError.disconnected(device: "scripted", reason: "link dropped"))
            state.subscriber = nil
        }
    }

    private func write(_ body: (inout State) -> [[UInt8]]) throws {
        let generation: Int = try state.withLock { state in
            guard state.connected else {
                throw GATTError.disconnected(device: "scripted", reason: "not connected")
            }
            state.inFlight += body(&state)
            state.writes += 1
            return state.writes
        }
        let quietPeriod = quietPeriod
        Task { [state] in
            try? await Task.sleep(for: quietPeriod)
            let resets = state.withLock { state -> Bool in
                guard state.writes == generation else { return false }
                Self.release(&state)
                return state.bootloader.resets
            }
            if resets { self.disconnect() }
        }
    }

    private static func release(_ state: inout State) {
        for value in state.inFlight { state.subscriber?.yield(value) }
        state.inFlight.removeAll()
    }
}
