import NordicDFU

/// Writes to the packet characteristic and packet receipt notifications (SDK 15–17
/// `nrf_dfu_ble.c`: `on_write`, `ble_dfu_req_handler_callback`; `nrf_dfu_req_handler.c`:
/// `on_cmd_obj_write_request`, `on_data_obj_write_request`).
extension SecureBootloader {
    mutating func receivePacket(_ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore)
        -> DeviceOutput
    {
        // A write that finds no free transport buffer is dropped before anything counts it.
        guard core.flash.hasFreeBuffer(at: time) else { return .none }
        var output = DeviceOutput()
        let result =
            currentObject == .command
            ? appendCommand(bytes) : writeData(bytes, at: time, core: &core, output: &output)
        if let receipt = packetReceipt(after: result, core: &core) {
            output.notifications.append(notification(receipt, at: time))
        }
        return output
    }

    /// What one write did, as the PRN that may follow reports it.
    enum WriteResult {
        case failed(SecureDFUResultCode)
        /// The data went nowhere (flash queue full): a PRN reports offset and CRC 0, the fields
        /// `on_data_obj_write_request` did not fill in.
        case lost
        case stored
    }

    /// `nrf_dfu_validation_init_cmd_append`: more than the announced size is Invalid Parameter
    /// (so is any write before Create, which announced 0).
    private mutating func appendCommand(_ bytes: [UInt8]) -> WriteResult {
        guard command.count + bytes.count <= commandSize else { return .failed(.invalidParameter) }
        command.append(contentsOf: bytes)
        commandCRC.update(bytes)
        return .stored
    }

    private mutating func writeData(
        _ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore, output: inout DeviceOutput
    ) -> WriteResult {
        guard accepted != nil, staging != nil else { return .failed(.operationNotPermitted) }
        guard dataOffset - executedOffset + bytes.count <= objectSize else {
            return .failed(.invalidParameter)
        }
        let writeTime = core.timing.writeTime(bytes: bytes.count).nanoseconds
        guard core.flash.writePacket(taking: writeTime, at: time) == nil else { return .lost }
        staging!.append(bytes[...])
        dataCRC.update(bytes)
        output.dropsLink = core.linkDropsAfterReceiving(dataOffset)
        return .stored
    }

    /// Every N-th write the transport counts (whatever its object and result) is answered with
    /// `60 03 <result> [offset crc]`; the count restarts there, on Create and on Set PRN.
    private mutating func packetReceipt(after result: WriteResult, core: inout DeviceCore)
        -> SecureDFUResponse?
    {
        guard prn > 0 else { return nil }
        prnCountdown = prnCountdown == 0 ? prn - 1 : prnCountdown - 1
        guard prnCountdown == 0 else { return nil }
        prnCountdown = prn
        let opCode = SecureDFURequest.calculateChecksum.opCode
        switch result {
        case .failed(let code):
            return SecureDFUResponse(opCode: opCode, outcome: .failure(code, extended: nil))
        case .lost:
            return SecureDFUResponse(
                opCode: opCode, outcome: .checksum(offset: 0, crc: core.reportedChecksum(0)))
        case .stored:
            let (offset, crc) = checksum()
            return SecureDFUResponse(
                opCode: opCode, outcome: .checksum(offset: offset, crc: core.reportedChecksum(crc)))
        }
    }
}
