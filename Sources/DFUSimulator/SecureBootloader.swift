import GATT
import NordicDFU

/// The RAM state and behaviour of an SDK 15–17 Secure DFU bootloader over BLE (protocol doc
/// §2.2–2.7, §2.11). Progress lives here: kept across a disconnect, lost with the value on reset.
struct SecureBootloader: Sendable {
    static let dataObjectMaximumSize = 4096

    private let uuids = DFUUUIDs()
    private var prn: UInt16 = 0
    private var prnCountdown: UInt16 = 0
    /// Select and Create choose the object that packets, Calculate Checksum and Execute act on.
    private var currentObject: SecureObjectType = .command

    private var command: [UInt8] = []
    /// The size announced by the last Create(command); 0 before any.
    private var commandSize = 0
    private var commandCRC = CRC32()
    private var accepted: SecureInitCheck.Accepted?

    private var staging: StagingArea?
    private var dataCRC = CRC32()
    /// The end of the last executed data object, and the CRC up to it: what Create rolls back to.
    private var executedOffset = 0
    private var executedCRC = CRC32()
    private var objectStart = 0
    /// The size of the open data object; 0 when none is open.
    private var objectSize = 0

    var dataOffset: Int { staging?.count ?? 0 }

    /// A bootloader that has just started; `prn` carries the setting over when an update restarts.
    init(prn: UInt16 = 0) {
        self.prn = prn
    }

    // MARK: Control point

    mutating func controlPoint(_ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore) -> DeviceOutput
    {
        let request: SecureDFURequest
        do {
            request = try SecureDFURequest(decoding: bytes)
        } catch {
            return respond(
                SecureDFUResponse(opCode: error.opCode, outcome: .failure(error.result, extended: nil)),
                at: time)
        }
        let opCode = request.opCode
        switch request {
        case .select(let type):
            currentObject = type
            let outcome: SecureDFUResponse.Outcome =
                switch type {
                case .command:
                    .selected(
                        maximumSize: UInt32(core.configuration.commandObjectMaximumSize),
                        offset: UInt32(command.count),
                        crc: commandCRC.value)
                case .data:
                    .selected(
                        maximumSize: UInt32(Self.dataObjectMaximumSize), offset: UInt32(dataOffset),
                        crc: dataCRC.value)
                }
            return respond(SecureDFUResponse(opCode: opCode, outcome: outcome), at: time)
        case .create(let type, let size):
            currentObject = type
            let outcome =
                type == .command
                ? createCommand(size: Int(size), core: core)
                : createData(size: Int(size), at: time, core: &core)
            if outcome == .success { prnCountdown = prn }
            return respond(SecureDFUResponse(opCode: opCode, outcome: outcome), at: time)
        case .setPacketReceiptNotification(let n):
            prn = n
            prnCountdown = n
            return respond(SecureDFUResponse(opCode: opCode, outcome: .success), at: time)
        case .calculateChecksum:
            let (offset, crc) = checksum()
            let reported = core.reportedChecksum(crc)
            return respond(
                SecureDFUResponse(opCode: opCode, outcome: .checksum(offset: offset, crc: reported)), at: time
            )
        case .execute:
            return currentObject == .command
                ? executeCommand(at: time, core: &core) : executeData(at: time, core: &core)
        case .abort:
            var output = DeviceOutput()
            output.dropsLink = true
            output.reset = (.applicationIfValid, 0)
            return output
        case .protocolVersion, .getMTU, .ping, .getHardwareVersion, .getFirmwareVersion:
            // The stock BLE transport answers these without their payload (§2.2).
            return respond(SecureDFUResponse(opCode: opCode, outcome: .success), at: time)
        }
    }

    private func respond(_ response: SecureDFUResponse, at time: Nanoseconds) -> DeviceOutput {
        .notify(uuids.secureControlPoint, response.encoded, at: time)
    }

    private func checksum() -> (UInt32, UInt32) {
        currentObject == .command
            ? (UInt32(command.count), commandCRC.value) : (UInt32(dataOffset), dataCRC.value)
    }

    /// Create(command) starts the update over: init command and all data progress go.
    private mutating func createCommand(size: Int, core: DeviceCore) -> SecureDFUResponse.Outcome {
        guard size > 0 else { return .failure(.invalidParameter, extended: nil) }
        guard size <= core.configuration.commandObjectMaximumSize else {
            return .failure(.insufficientResources, extended: nil)
        }
        self = SecureBootloader(prn: prn)
        currentObject = .command
        commandSize = size
        command.reserveCapacity(size)
        return .success
    }

    /// Create(data) rolls back to the last executed object and erases the object's pages.
    private mutating func createData(size: Int, at time: Nanoseconds, core: inout DeviceCore)
        -> SecureDFUResponse.Outcome
    {
        guard let accepted, staging != nil else { return .failure(.operationNotPermitted, extended: nil) }
        let imageSize = accepted.layout.total
        guard size > 0 else { return .failure(.invalidParameter, extended: nil) }
        guard size <= Self.dataObjectMaximumSize else {
            return .failure(.insufficientResources, extended: nil)
        }
        let isLast = executedOffset + size == imageSize
        guard size % core.timing.pageSize == 0 || isLast else {
            return .failure(.invalidParameter, extended: nil)
        }
        guard executedOffset + size <= imageSize else {
            return .failure(.operationNotPermitted, extended: nil)
        }
        staging!.truncate(to: executedOffset)
        dataCRC = executedCRC
        objectStart = executedOffset
        objectSize = size
        core.flash.perform(taking: core.timing.eraseTime(bytes: size).nanoseconds, at: time)
        return .success
    }

    private mutating func executeCommand(at time: Nanoseconds, core: inout DeviceCore) -> DeviceOutput {
        let opCode = SecureDFURequest.execute.opCode
        guard commandSize > 0, command.count == commandSize else {
            return respond(
                SecureDFUResponse(opCode: opCode, outcome: .failure(.operationNotPermitted, extended: nil)),
                at: time)
        }
        if let accepted, accepted.bytes == command {
            return respond(SecureDFUResponse(opCode: opCode, outcome: .success), at: time)
        }
        switch SecureInitCheck.check(command, on: core) {
        case .refused(let outcome):
            return respond(SecureDFUResponse(opCode: opCode, outcome: outcome), at: time)
        case .accepted(let accepted):
            self.accepted = accepted
            staging = StagingArea(layout: accepted.layout)
            dataCRC = CRC32()
            executedOffset = 0
            executedCRC = CRC32()
            objectStart = 0
            objectSize = 0
            // The accepted command is stored in the settings page before the answer.
            core.flash.perform(taking: core.timing.settingsWrite.nanoseconds, at: time)
            return respond(SecureDFUResponse(opCode: opCode, outcome: .success), at: core.flash.busyUntil)
        }
    }

    private mutating func executeData(at time: Nanoseconds, core: inout DeviceCore) -> DeviceOutput {
        let opCode = SecureDFURequest.execute.opCode
        guard let accepted, let staging, objectSize > 0, dataOffset - objectStart == objectSize else {
            return respond(
                SecureDFUResponse(opCode: opCode, outcome: .failure(.operationNotPermitted, extended: nil)),
                at: time)
        }
        executedOffset = dataOffset
        executedCRC = dataCRC
        objectSize = 0
        // The answer waits until the object is in flash.
        let flashed = max(time, core.flash.busyUntil)
        guard executedOffset == accepted.layout.total else {
            return respond(SecureDFUResponse(opCode: opCode, outcome: .success), at: flashed)
        }
        let validatedAt = flashed + core.timing.hashTime(bytes: executedOffset).nanoseconds
        let version = accepted.packet.type == .softdevice ? nil : accepted.packet.fwVersion
        guard let image = staging.validated(against: .sha256(accepted.digest), version: version) else {
            self = SecureBootloader(prn: prn)
            return respond(
                SecureDFUResponse(
                    opCode: opCode, outcome: .failure(.extendedError, extended: .verificationFailed)),
                at: validatedAt)
        }
        core.install(image)
        var output = respond(SecureDFUResponse(opCode: opCode, outcome: .success), at: validatedAt)
        output.dropsLink = true
        output.reset = (.applicationIfValid, core.timing.activationTime(bytes: image.bytes.count).nanoseconds)
        return output
    }

    // MARK: Packet

    mutating func packet(_ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore) -> DeviceOutput {
        var result = SecureDFUResultCode.success
        var output = DeviceOutput()
        if currentObject == .command {
            if commandSize == 0 {
                result = .operationNotPermitted
            } else if command.count + bytes.count > commandSize {
                result = .invalidParameter
            } else {
                command.append(contentsOf: bytes)
                commandCRC.update(bytes)
            }
        } else if accepted == nil || staging == nil {
            result = .operationNotPermitted
        } else if objectSize == 0 || dataOffset - objectStart + bytes.count > objectSize {
            result = .invalidParameter
        } else {
            let writeTime = core.timing.writeTime(bytes: bytes.count).nanoseconds
            // A full flash queue drops the packet silently; it still counts as a write for the
            // PRN, whose offset then shows the loss (protocol doc §2.5).
            if core.flash.write(taking: writeTime, at: time) {
                staging!.append(bytes[...])
                dataCRC.update(bytes)
                output.dropsLink = core.linkDropsAfterReceiving(dataOffset)
            }
        }
        if prn > 0 {
            if prnCountdown == 0 { prnCountdown = prn }
            prnCountdown -= 1
            if prnCountdown == 0 {
                prnCountdown = prn
                let notification: SecureDFUResponse
                if result == .success {
                    let (offset, crc) = checksum()
                    notification = SecureDFUResponse(
                        opCode: SecureDFURequest.calculateChecksum.opCode,
                        outcome: .checksum(offset: offset, crc: core.reportedChecksum(crc)))
                } else {
                    notification = SecureDFUResponse(
                        opCode: SecureDFURequest.calculateChecksum.opCode,
                        outcome: .failure(result, extended: nil))
                }
                output.notifications.append(
                    PendingNotification(
                        characteristic: uuids.secureControlPoint, value: notification.encoded, readyAt: time))
            }
        }
        return output
    }
}
