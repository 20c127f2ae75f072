import GATT
import MCUmgr

/// A Zephyr application with MCUmgr's SMP service over Bluetooth, booted by MCUboot
/// (`--simulate smp-app`). Its RAM is the transport's buffers and the server's upload state;
/// the slots are in `DeviceCore.mcuboot`.
struct SMPApplication: Sendable {
    private var transport: SMPTransport
    private var server: SMPServer
    /// The firmware loader's image buffer: when each chunk in it is written, and its bytes.
    private var imageBuffer: [(written: Nanoseconds, bytes: Int)] = []

    init(configuration: SMPDeviceConfiguration, timing: SimulationTiming, isFirmwareLoader: Bool = false) {
        transport = SMPTransport(configuration: configuration)
        server = SMPServer(configuration: configuration, timing: timing, isFirmwareLoader: isFirmwareLoader)
    }

    /// A write to the SMP characteristic: requests are handled in order, one after the other;
    /// each answer is notified once its flash work is done, in pieces of ATT_MTU − 3 bytes.
    mutating func write(_ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore) -> DeviceOutput {
        guard let packet = transport.receive(bytes, at: time),
            // taken out, so that writing the slot does not copy it
            var slots = core.mcuboot.take()
        else { return .none }
        defer { core.mcuboot = slots }
        var output = DeviceOutput()
        // the work queue takes it once the last answer is reported sent
        let start = max(time, transport.workFreeAt)
        var answerReady = start
        if let capacity = transport.configuration.loaderImageBuffer, server.isFirmwareLoader {
            imageBuffer.removeAll { $0.written <= start }
            server.imageBufferFree = capacity - imageBuffer.reduce(0) { $0 + $1.bytes }
        }
        var rest = packet[...]
        // Zephyr handles every frame of a packet in turn and stops at the first that fails.
        while rest.count >= SMPHeader.size, let header = try? SMPHeader(decoding: rest) {
            let body = rest.dropFirst(SMPHeader.size)
            guard body.count >= Int(header.length) else {
                notify(
                    header, .mcumgrError(.corrupt), at: core.flash.busyUntil, mtu: core.configuration.mtu,
                    into: &output)
                break
            }
            rest = body.dropFirst(Int(header.length))
            let outcome = server.handle(
                header, payload: Array(body.prefix(Int(header.length))), slots: &slots)
            let timing = core.timing
            let flashTime =
                timing.eraseTime(bytes: outcome.flash.eraseBytes)
                + timing.writeTime(bytes: outcome.flash.writeBytes)
            core.flash.perform(taking: flashTime.nanoseconds, at: start)
            if outcome.flash.buffered {
                imageBuffer.append((core.flash.busyUntil, outcome.flash.writeBytes))
            } else {
                answerReady = max(answerReady, core.flash.busyUntil)
            }
            if header.group == .image, header.command == 1, case .success(let answer) = outcome.answer,
                let offset = answer["off"]?.integer(as: Int.self), core.linkDropsAfterReceiving(offset)
            {
                // `disconnect-at`: the link goes down before the answer is out.
                output.dropsLink = true
                break
            }
            notify(header, outcome.answer, at: answerReady, mtu: core.configuration.mtu, into: &output)
            if outcome.erasesSettings { core.settingsErasures += 1 }
            if outcome.resets {
                output = output.resetting(
                    to: outcome.startsLoader ? .firmwareLoader : .applicationIfValid,
                    after: server.configuration.resetDelay.nanoseconds)
            }
            if case .mcumgrError = outcome.answer { break }
        }
        // a packet that drew no answer frees its buffer once handled
        transport.hold(
            until: output.notifications.isEmpty
                ? start
                : SMPTransport.reportedSent(
                    readyAt: answerReady, receivedAt: time,
                    interval: core.timing.connectionInterval.nanoseconds))
        return output
    }

    /// The link dropped without a reset.
    mutating func linkDropped() { transport.linkDropped() }

    /// The answer to `request`, split as `smp_bt_tx_pkt` does.
    private func notify(
        _ request: SMPHeader, _ answer: SMPAnswer, at readyAt: Nanoseconds, mtu: Int,
        into output: inout DeviceOutput
    ) {
        let frame = SMPFrame(
            operation: request.operation.response, version: request.version, group: request.group,
            sequence: request.sequence, command: request.command,
            payload: answer.body(for: request.version).encoded)
        let bytes = frame.encoded
        for start in stride(from: 0, to: bytes.count, by: mtu - 3) {
            output.notifications.append(
                PendingNotification(
                    characteristic: SMPUUIDs.characteristic,
                    value: Array(bytes[start..<min(start + mtu - 3, bytes.count)]),
                    readyAt: readyAt))
        }
    }
}
