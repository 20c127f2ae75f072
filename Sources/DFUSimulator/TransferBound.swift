import NordicDFU

/// One part of an update, as far as the time it needs on the link and flash model is concerned.
public struct TransferConfiguration: Hashable, Sendable {
    /// Which of Nordic's DFU protocols carries the part.
    public var dfuProtocol: NordicDFUProtocol
    /// Firmware image bytes of the part.
    public var imageSize: Int
    /// Init packet bytes.
    public var initPacketSize: Int
    /// Bytes per packet-characteristic write: Secure (MTU − 3) rounded down to a multiple of 4;
    /// Legacy 20.
    public var payloadSize: Int
    /// Packet receipt notification interval N, 0 for none. With N > 0 the client waits for each
    /// notification before sending on, which is what the notifications are for.
    public var packetReceiptNotifications: Int
    /// Secure data object size (the Select response's maximum, 4096).
    public var objectSize: Int
    /// The ATT MTU the Secure bootloader was built for, which sizes its packet buffers
    /// (`SimulationTiming.packetBuffers(mtu:)`); nil: the MTU of `payloadSize`.
    public var bootloaderMTU: Int?

    public init(
        dfuProtocol: NordicDFUProtocol, imageSize: Int, initPacketSize: Int, payloadSize: Int,
        packetReceiptNotifications: Int = 0, objectSize: Int = 4096, bootloaderMTU: Int? = nil
    ) {
        self.bootloaderMTU = bootloaderMTU
        self.dfuProtocol = dfuProtocol
        self.imageSize = imageSize
        self.initPacketSize = initPacketSize
        self.payloadSize = payloadSize
        self.packetReceiptNotifications = packetReceiptNotifications
        self.objectSize = objectSize
    }
}

/// The shortest time the simulator's model allows for a transfer (docs/simulator.md, "The bound").
///
/// It schedules a perfect client on the model: every packet goes in the first connection event
/// with a free slot in which the flash queue has room for it (so nothing is ever dropped), every
/// request the protocol needs is sent at the first possible event, and no other request is made.
/// The time runs from the event of the first control point request to the event in which the
/// last response arrives (Secure: the final Execute; Legacy: Validate). Connecting, discovery,
/// subscribing and the reset after activation are not included.
public enum TransferBound {
    public static func minimumDuration(
        for transfer: TransferConfiguration, timing: SimulationTiming = SimulationTiming()
    )
        -> Duration
    {
        let mtu = transfer.bootloaderMTU ?? transfer.payloadSize + 3
        var schedule = IdealSchedule(timing: timing, packetBuffers: timing.packetBuffers(mtu: mtu))
        switch transfer.dfuProtocol {
        case .secure: schedule.runSecure(transfer)
        case .legacy: schedule.runLegacy(transfer)
        }
        return schedule.finishedAt.duration
    }
}

/// The perfect client's timeline on the model (same rules as `LinkSchedule` and `FlashQueue`).
private struct IdealSchedule {
    let timing: SimulationTiming
    let interval: Nanoseconds
    /// The event the client sends next in, and the slots of it already used.
    private var event: Int64 = 0
    private var used = 0
    /// The device's flash, as the device itself models it.
    private var flash: FlashQueue
    private(set) var finishedAt: Nanoseconds = 0

    init(timing: SimulationTiming, packetBuffers: Int) {
        self.timing = timing
        interval = timing.connectionInterval.nanoseconds
        flash = FlashQueue(packetBuffers: packetBuffers, operationLimit: timing.flashOperationQueue)
    }

    private func time(_ event: Int64) -> Nanoseconds { event * interval }

    /// Sends a packet of `payload` bytes; returns its event.
    private mutating func send(payload: Int) -> Int64 {
        let slots = timing.slots(forPayload: payload)
        if used + slots > timing.packetsPerEvent {
            event += 1
            used = 0
        }
        used += slots
        return event
    }

    /// The client received something in `received`: it sends next in the following event.
    private mutating func receive(inEvent received: Int64) {
        if received + 1 > event {
            event = received + 1
            used = 0
        }
    }

    /// The device answers a request of event `request` once ready at `readyAt`; the client waits.
    private mutating func answer(request: Int64, readyAt: Nanoseconds) {
        let answered = max(request + 1, (readyAt + interval - 1) / interval)
        receive(inEvent: answered)
        finishedAt = time(answered)
    }

    /// A request answered as soon as it arrives.
    private mutating func roundTrip() {
        let request = send(payload: 1)
        answer(request: request, readyAt: 0)
    }

    /// The event the next packet could go in, and its arrival time.
    private func nextSlot(payload: Int) -> Int64 {
        used + timing.slots(forPayload: payload) > timing.packetsPerEvent ? event + 1 : event
    }

    /// Streams `count` bytes as data packets (Secure data objects and Legacy images); waits for
    /// every N-th packet's receipt notification when N > 0, except after the packet that
    /// completes a Legacy image (which is answered instead). A Secure packet waits for an event
    /// in which the device has a free buffer and room in its flash queue.
    private mutating func streamImageBytes(_ count: Int, payload: Int, prn: Int, secure: Bool) -> Int64 {
        var remaining = count
        var packets = 0
        var lastEvent = event
        while remaining > 0 {
            let length = min(payload, remaining)
            let writeTime = timing.writeTime(bytes: length).nanoseconds
            if secure {
                while true {
                    let arrival = time(nextSlot(payload: length))
                    var probe = flash
                    guard probe.writePacket(taking: writeTime, at: arrival) != nil,
                        let release = flash.nextCompletion(after: arrival)
                    else { break }
                    let free = (release + interval - 1) / interval
                    if free > event {
                        event = free
                        used = 0
                    }
                }
            }
            lastEvent = send(payload: length)
            if secure {
                _ = flash.writePacket(taking: writeTime, at: time(lastEvent))
            } else {
                flash.perform(taking: writeTime, at: time(lastEvent))
            }
            remaining -= length
            packets += 1
            let completesLegacyImage = !secure && remaining == 0
            if prn > 0, packets % prn == 0, !completesLegacyImage { receive(inEvent: lastEvent + 1) }
        }
        return lastEvent
    }

    /// Sends `count` bytes of init packet (no flash involved).
    private mutating func streamInitPacket(_ count: Int, payload: Int) {
        var remaining = count
        while remaining > 0 {
            _ = send(payload: min(payload, remaining))
            remaining -= payload
        }
    }

    mutating func runSecure(_ transfer: TransferConfiguration) {
        // Init packet: Create, stream, Calculate Checksum, Execute (answered at once; the
        // settings write it queues delays the first erase).
        roundTrip()
        streamInitPacket(transfer.initPacketSize, payload: transfer.payloadSize)
        roundTrip()
        var request = send(payload: 1)
        for operation in timing.settingsWriteOperations {
            flash.perform(taking: operation.nanoseconds, at: time(request))
        }
        answer(request: request, readyAt: 0)
        if transfer.packetReceiptNotifications > 0 { roundTrip() }
        var offset = 0
        while offset < transfer.imageSize {
            let size = min(transfer.objectSize, transfer.imageSize - offset)
            // Create queues the erase of the object's pages and answers at once.
            request = send(payload: 1)
            flash.perform(taking: timing.eraseTime(bytes: size).nanoseconds, at: time(request))
            answer(request: request, readyAt: 0)
            _ = streamImageBytes(
                size, payload: transfer.payloadSize, prn: transfer.packetReceiptNotifications, secure: true)
            roundTrip()  // Calculate Checksum
            offset += size
            request = send(payload: 1)  // Execute waits for the flash; the last one also validates
            let validation = offset == transfer.imageSize ? timing.hashTime(bytes: offset).nanoseconds : 0
            answer(request: request, readyAt: max(time(request), flash.busyUntil) + validation)
        }
    }

    mutating func runLegacy(_ transfer: TransferConfiguration) {
        // Start DFU, then the size packet; the answer comes once the image's pages are erased.
        roundTrip()
        let sizes = send(payload: 12)
        flash.perform(taking: timing.eraseTime(bytes: transfer.imageSize).nanoseconds, at: time(sizes))
        answer(request: sizes, readyAt: flash.busyUntil)
        // Init packet: begin (a write request), chunks, complete (answered at once).
        roundTrip()
        streamInitPacket(transfer.initPacketSize, payload: transfer.payloadSize)
        roundTrip()
        if transfer.packetReceiptNotifications > 0 { roundTrip() }
        roundTrip()  // Receive Firmware Image (write request, no notification)
        let last = streamImageBytes(
            transfer.imageSize, payload: transfer.payloadSize, prn: transfer.packetReceiptNotifications,
            secure: false)
        answer(request: last, readyAt: flash.busyUntil)
        let validate = send(payload: 1)
        answer(
            request: validate,
            readyAt: max(time(validate), flash.busyUntil)
                + timing.hashTime(bytes: transfer.imageSize).nanoseconds)
    }
}
