import GATT
import MCUmgr

/// A connected SMP device: its SMP channel and what it told of its buffers.
struct SMPLink {
    let peripheral: any GATTPeripheral
    let channel: SMPChannel
    /// The device's SMP buffers: Zephyr's defaults (384 bytes, 4 of them) when it does not report
    /// them.
    var parameters = MCUmgrParameters(bufferSize: 384, bufferCount: 4)

    var address: BluetoothAddress { peripheral.address }
}

extension UpdateSession {
    /// Connects to an SMP device (several attempts) and learns its buffers; a lost answer to
    /// that first request reconnects and asks again, within `DFUOptions.retries`.
    func connectSMP(_ target: DeviceIdentifier) async throws -> SMPLink {
        var attempt = 0
        while true {
            let link = try await connect(target, inspecting: inspectSMP)
            do {
                return try await prepare(link)
            } catch let failure as DFUFailure where failure.isRetryable && attempt < options.retries {
                attempt += 1
                tally.retries += 1
                log(.info, "\(failure.detail); connecting again (\(attempt) of \(options.retries))")
                link.channel.close()
                await link.peripheral.disconnect()
            }
        }
    }

    /// Finds an SMP device again after its reset, at its address (or by `name`), within `timeout`.
    func reconnectSMP(at address: BluetoothAddress, named name: String? = nil, within timeout: Duration)
        async throws
        -> SMPLink
    {
        try await prepare(
            try await reconnect(
                candidates: [address], name: name, within: timeout,
                inspecting: inspectSMP))
    }

    private func inspectSMP(_ peripheral: any GATTPeripheral) async throws -> SMPLink {
        let services = try await peripheral.services()
        guard let characteristic = SMPUUIDs.characteristic(in: services)
        else {
            await peripheral.disconnect()
            guard
                let nordic = DFUDeviceSupport.advertisedProtocol(
                    services.map(\.uuid), uuids: options.nordic.uuids)
            else { throw failure(.deviceNotSupported, "it offers no SMP (MCUmgr) service") }
            throw failure(
                .deviceNotSupported,
                "it offers \(nordic.rawValue) DFU, not SMP (MCUmgr), and the file is an MCUboot update",
                advice: "give it a Nordic DFU package (an nrfutil .zip, or a .bin/.hex application)")
        }
        let channel = try await SMPChannel.open(
            characteristic, device: peripheral.address.description, session: self)
        return SMPLink(peripheral: peripheral, channel: channel)
    }

    /// Asks for the device's buffers and whether it joins a frame written in several parts.
    private func prepare(_ link: SMPLink) async throws -> SMPLink {
        var link = link
        do {
            let asked = linkTime.now()
            let answer = try await link.channel.request(
                .mcumgrParameters, timeout: options.notificationTimeout)
            link.parameters = try MCUmgrParameters(answer)
            if link.parameters.bufferCount <= 2 {
                link.channel.pauseAfterAnswer = Self.pauseForTwoBuffers(roundTrip: linkTime.now() - asked)
                log(
                    .info,
                    "the device has \(link.parameters.bufferCount) SMP buffers: each request waits "
                        + "\(link.channel.pauseAfterAnswer) after an answer, for the device to free them")
            }
        } catch let failure as DFUFailure where failure.error == .remoteMcumgrNotSupported {
            log(.info, "the device does not report its SMP buffers: taking Zephyr's defaults")
        } catch let error as SMPResponseError {
            throw smpFailure(error, answering: SMPRequest.mcumgrParameters.name)
        }
        link.channel.deviceReassembles = try await joinsSplitFrames(link)
        log(
            .info,
            "connected to \(link.address): SMP, buffers \(link.parameters.bufferCount) × "
                + "\(link.parameters.bufferSize) bytes, "
                + (link.channel.deviceReassembles ? "frames split over writes" : "one frame per write"))
        return link
    }

    /// The pause after an answer for a device with two buffers: at least one connection
    /// interval, which BlueZ does not tell. The round trip of a request is one or more; a device
    /// that answers within the event of the request makes it shorter, so it is never taken below
    /// the longest interval Linux asks for by default (50 ms), nor above half a second.
    static func pauseForTwoBuffers(roundTrip: Duration) -> Duration {
        min(max(roundTrip, .milliseconds(50)), .milliseconds(500))
    }

    /// Whether the device reassembles a frame written in several parts
    /// (`CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY`), which only matters when its buffer is larger
    /// than one write: an echo one byte longer than a write, answered in full, says so. A device
    /// without reassembly takes the first write as a frame cut short and answers it with an error
    /// or not at all; the 1-byte rest is too short to be taken for a frame.
    private func joinsSplitFrames(_ link: SMPLink) async throws -> Bool {
        let channel = link.channel
        guard Int(link.parameters.bufferSize) > channel.writeLength else { return false }
        guard let text = SMPRequest.echoText(frameLength: channel.writeLength + 1) else { return false }
        channel.deviceReassembles = true
        defer { channel.deviceReassembles = false }
        do {
            let answer = try await channel.request(.echo(text), timeout: options.notificationTimeout)
            return (try? EchoResponse(answer))?.text == text
        } catch let failure as DFUFailure
            where failure.error == .receivingNotificationFailed || failure.error.isRemote
        {
            return false
        }
    }
}

extension SMPRequest {
    /// Text for an echo request whose whole frame is `frameLength` bytes; nil when none is.
    static func echoText(frameLength: Int) -> String? {
        for count in stride(from: frameLength, through: 0, by: -1) {
            let text = String(repeating: "~", count: count)
            let length = SMPRequest.echo(text).frame(sequence: 0).encoded.count
            if length == frameLength { return text }
            if length < frameLength { return nil }
        }
        return nil
    }
}
