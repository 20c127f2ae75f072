import NordicDFU

/// Writes to the Legacy packet characteristic (SDK 11 `dfu_transport_ble.c`: `on_dfu_pkt_write`).
extension LegacyBootloader {
    mutating func receivePacket(_ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore)
        -> DeviceOutput
    {
        switch phase {
        case .awaitingSizes(let type):
            return sizes(bytes, type: type, at: time, core: &core)
        case .receivingInit:
            // `dfu_init_pkt_handle`: more than the buffer holds is an error, answered at once.
            guard initBytes.count + bytes.count <= Self.maximumInitPacketSize else {
                return respond(LegacyDFURequest.initParametersBegin.opCode, .operationFailed, at: time)
            }
            initBytes += bytes
            return .none
        case .receivingImage, .imageReceived:
            return imageData(bytes, at: time, core: &core)
        default:
            return .none
        }
    }

    /// The 12-byte size packet after Start DFU: checks it and erases the pages the image needs.
    private mutating func sizes(
        _ bytes: [UInt8], type: LegacyImageType, at time: Nanoseconds, core: inout DeviceCore
    )
        -> DeviceOutput
    {
        let opCode = LegacyDFURequest.startDFU(type).opCode
        phase = .idle
        guard let sizes = LegacyImageSizes(decoding: bytes) else {
            return respond(opCode, .notSupported, at: time)
        }
        let layout = ImageLayout(
            softdevice: Int(sizes.softdevice), bootloader: Int(sizes.bootloader),
            application: Int(sizes.application))
        let announced: LegacyImageType = [
            layout.softdevice > 0 ? .softdevice : [], layout.bootloader > 0 ? .bootloader : [],
            layout.application > 0 ? .application : [],
        ]
        guard layout.total > 0, announced == type,
            !(type.contains(.application) && (type.contains(.softdevice) || type.contains(.bootloader))),
            [layout.softdevice, layout.bootloader, layout.application].allSatisfy({ $0 % 4 == 0 })
        else { return respond(opCode, .notSupported, at: time) }
        guard layout.total <= core.configuration.bankCapacity else {
            return respond(opCode, .dataSizeExceedsLimit, at: time)
        }
        self.layout = layout
        phase = .started
        core.flash.perform(taking: core.timing.eraseTime(bytes: layout.total).nanoseconds, at: time)
        return respond(opCode, .success, at: core.flash.busyUntil)
    }

    /// `app_data_process` and `dfu_data_pkt_handle`: every packet is whole words; too much data
    /// poisons the transfer; each packet goes to flash; the packet that completes the image is
    /// answered `10 03 01` once its write is done, and only packets that leave more data expected
    /// count towards a PRN.
    private mutating func imageData(_ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore)
        -> DeviceOutput
    {
        let opCode = LegacyDFURequest.receiveFirmwareImage.opCode
        guard bytes.count % 4 == 0 else { return respond(opCode, .notSupported, at: time) }
        guard received + bytes.count <= layout.total else {
            phase = .failed
            return respond(opCode, .dataSizeExceedsLimit, at: time)
        }
        staging!.append(bytes[...])
        core.flash.perform(taking: core.timing.writeTime(bytes: bytes.count).nanoseconds, at: time)
        var output = DeviceOutput()
        if received == layout.total {
            phase = .imageReceived
            output.notifications.append(
                notification(.response(opCode: opCode, status: .success), at: core.flash.busyUntil))
        } else if prn > 0 {
            prnCountdown = prnCountdown > 1 ? prnCountdown - 1 : 0
            if prnCountdown == 0 {
                prnCountdown = prn
                output.notifications.append(
                    notification(.packetReceipt(bytesReceived: UInt32(received)), at: time))
            }
        }
        output.dropsLink = core.linkDropsAfterReceiving(received)
        return output
    }

}
