import NordicDFU

/// Create and Execute of command and data objects (SDK 15–17 `nrf_dfu_req_handler.c`,
/// `nrf_dfu_validation.c`).
extension SecureBootloader {
    /// Create(command) starts the update over: init command and all data progress go
    /// (`nrf_dfu_validation_init_cmd_create`).
    mutating func createCommand(size: Int, core: DeviceCore) -> SecureDFUResponse.Outcome {
        guard size > 0 else { return .failure(.invalidParameter, extended: nil) }
        guard size <= core.configuration.commandObjectMaximumSize else {
            return .failure(.insufficientResources, extended: nil)
        }
        self = SecureBootloader(prn: prn, requiresBonds: requiresBonds)
        commandSize = size
        command.reserveCapacity(size)
        return .success
    }

    /// Create(data) rolls back to the last executed object and queues the erase of the object's
    /// pages; it answers at once (`on_data_obj_create_request`, checks in its order).
    mutating func createData(size: Int, at time: Nanoseconds, core: inout DeviceCore)
        -> SecureDFUResponse.Outcome
    {
        guard let accepted, staging != nil else { return .failure(.operationNotPermitted, extended: nil) }
        let imageSize = accepted.layout.total
        guard size > 0 else { return .failure(.invalidParameter, extended: nil) }
        guard size % core.timing.pageSize == 0 || executedOffset + size == imageSize else {
            return .failure(.invalidParameter, extended: nil)
        }
        guard size <= Self.dataObjectMaximumSize else {
            return .failure(.insufficientResources, extended: nil)
        }
        guard executedOffset + size <= imageSize else {
            return .failure(.operationNotPermitted, extended: nil)
        }
        staging!.truncate(to: executedOffset)
        dataCRC = executedCRC
        objectSize = size
        core.flash.perform(taking: core.timing.eraseTime(bytes: size).nanoseconds, at: time)
        return .success
    }

    /// Execute(command) (`nrf_dfu_validation_init_cmd_execute`): the announced size must have
    /// arrived; an accepted command is acknowledged again; otherwise the checks run and a refusal
    /// wipes the command's progress. The answer does not wait for the settings write it queues.
    mutating func executeCommand(at time: Nanoseconds, core: inout DeviceCore) -> DeviceOutput {
        let opCode = SecureDFURequest.execute.opCode
        guard command.count == commandSize else {
            return respond(opCode, .failure(.operationNotPermitted, extended: nil), at: time)
        }
        if accepted != nil { return respond(opCode, .success, at: time) }
        switch SecureInitCheck.check(command, on: core) {
        case .refused(let outcome):
            self = SecureBootloader(prn: prn, requiresBonds: requiresBonds)
            return respond(opCode, outcome, at: time)
        case .accepted(let accepted):
            self.accepted = accepted
            staging = StagingArea(layout: accepted.layout)
            for operation in core.timing.settingsWriteOperations {
                core.flash.perform(taking: operation.nanoseconds, at: time)
            }
            return respond(opCode, .success, at: time)
        }
    }

    /// Execute(data) (`on_data_obj_execute_request`): the bytes since the last executed object
    /// must be the created size (0 when executed already, so a repeated Execute succeeds). The
    /// answer waits until the flash is idle; the object that completes the image is then
    /// post-validated (hash ⇒ ext 0x0C and all progress lost), and on success the device
    /// activates the image and resets.
    mutating func executeData(at time: Nanoseconds, core: inout DeviceCore) -> DeviceOutput {
        let opCode = SecureDFURequest.execute.opCode
        guard let accepted, let staging, dataOffset - executedOffset == objectSize else {
            return respond(opCode, .failure(.operationNotPermitted, extended: nil), at: time)
        }
        executedOffset = dataOffset
        executedCRC = dataCRC
        objectSize = 0
        let flashed = max(time, core.flash.busyUntil)
        guard executedOffset == accepted.layout.total else { return respond(opCode, .success, at: flashed) }
        let validatedAt = flashed + core.timing.hashTime(bytes: executedOffset).nanoseconds
        let version = accepted.packet.type == .softdevice ? nil : accepted.packet.fwVersion
        guard let image = staging.validated(against: .sha256(accepted.digest), version: version) else {
            self = SecureBootloader(prn: prn, requiresBonds: requiresBonds)
            return respond(opCode, .failure(.extendedError, extended: .verificationFailed), at: validatedAt)
        }
        core.install(image)
        let activation = core.timing.activationTime(bytes: image.bytes.count).nanoseconds
        if core.finalAnswerIsLost() {
            return .reset(to: .applicationIfValid, after: validatedAt - time + activation)
        }
        return respond(opCode, .success, at: validatedAt).resetting(
            to: .applicationIfValid, after: activation)
    }
}
