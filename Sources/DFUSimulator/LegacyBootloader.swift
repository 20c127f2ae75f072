import GATT
import NordicDFU

/// The RAM state and behaviour of an SDK 7–11 Legacy DFU bootloader, dual bank (protocol doc §1).
/// There is no resume: a dropped link or a reset loses the transfer.
struct LegacyBootloader: Sendable {
    /// The largest init packet the bootloader buffers.
    static let maximumInitPacketSize = 512

    private enum Phase {
        case idle
        case awaitingSizes(LegacyImageType)
        case started
        case receivingInit
        case initValidated
        case receivingImage
        case imageReceived
        case validated(ValidatedImage)
    }

    private let uuids = DFUUUIDs()
    private var phase = Phase.idle
    private var layout = ImageLayout()
    private var initBytes: [UInt8] = []
    private var initPacket: LegacyInitPacket?
    private var staging: StagingArea?
    private var prn: UInt16 = 0
    private var packetsSinceReceipt = 0

    private var received: Int { staging?.count ?? 0 }

    /// The link dropped: the transfer is lost.
    mutating func linkDropped() {
        self = LegacyBootloader()
    }

    // MARK: Control point

    mutating func controlPoint(_ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore) -> DeviceOutput
    {
        let request: LegacyDFURequest
        do {
            request = try LegacyDFURequest(decoding: bytes)
        } catch {
            return respond(error.opCode, error.status, at: time)
        }
        let opCode = request.opCode
        switch request {
        case .startDFU(let type):
            guard case .idle = phase else { return respond(opCode, .invalidState, at: time) }
            phase = .awaitingSizes(type)
            return .none
        case .startDFUVersion1:
            return respond(opCode, .operationFailed, at: time)
        case .initParametersBegin:
            guard case .started = phase else { return respond(opCode, .invalidState, at: time) }
            phase = .receivingInit
            initBytes = []
            return .none
        case .initParametersComplete:
            guard case .receivingInit = phase else { return respond(opCode, .invalidState, at: time) }
            guard let packet = checkedInitPacket(core: core) else {
                phase = .started
                return respond(opCode, .operationFailed, at: time)
            }
            initPacket = packet
            phase = .initValidated
            return respond(opCode, .success, at: time)
        case .packetReceiptNotificationRequest(let n):
            prn = n
            return .none
        case .receiveFirmwareImage:
            guard case .initValidated = phase else { return respond(opCode, .invalidState, at: time) }
            phase = .receivingImage
            staging = StagingArea(layout: layout)
            packetsSinceReceipt = 0
            return .none
        case .validateFirmware:
            guard case .imageReceived = phase, let staging, let initPacket else {
                return respond(opCode, .invalidState, at: time)
            }
            let checkedAt =
                max(time, core.flash.busyUntil) + core.timing.hashTime(bytes: staging.count).nanoseconds
            let version = initPacket.applicationVersion == 0xFFFF_FFFF ? nil : initPacket.applicationVersion
            let digest: ExpectedDigest =
                if let hash = initPacket.firmwareHash { .sha256(hash) } else {
                    .crc16(initPacket.firmwareCRC16 ?? 0)
                }
            guard let image = staging.validated(against: digest, version: version) else {
                self = LegacyBootloader()
                return respond(opCode, .crcError, at: checkedAt)
            }
            phase = .validated(image)
            return respond(opCode, .success, at: checkedAt)
        case .activateAndReset:
            guard case .validated(let image) = phase else { return respond(opCode, .invalidState, at: time) }
            core.install(image)
            var output = DeviceOutput()
            output.dropsLink = true
            // After a SoftDevice or bootloader the new bootloader starts without peer data.
            let target: BootTarget =
                image.layout.application > 0 ? .applicationIfValid : .bootloader(keepsAddress: false)
            output.reset = (target, core.timing.activationTime(bytes: image.bytes.count).nanoseconds)
            return output
        case .reset:
            var output = DeviceOutput()
            output.dropsLink = true
            output.reset = (.applicationIfValid, 0)
            return output
        case .reportReceivedImageSize:
            return .notify(
                uuids.legacyControlPoint, LegacyDFUResponse.receivedImageSize(UInt32(received)).encoded,
                at: time)
        }
    }

    private func respond(_ opCode: UInt8, _ status: LegacyDFUStatus, at time: Nanoseconds) -> DeviceOutput {
        .notify(
            uuids.legacyControlPoint, LegacyDFUResponse.response(opCode: opCode, status: status).encoded,
            at: time)
    }

    /// The init packet if this bootloader accepts it: a layout its DFU version knows, the device
    /// type and revision (0xFFFF: any), a SoftDevice it holds (0xFFFE: any), the image length.
    private func checkedInitPacket(core: DeviceCore) -> LegacyInitPacket? {
        guard let packet = try? LegacyInitPacket.decode(initBytes) else { return nil }
        let configuration = core.configuration
        if packet.firmwareHash != nil, configuration.legacyDFUVersion < LegacyDFUVersion(major: 0, minor: 7) {
            return nil
        }
        if let type = configuration.legacyDeviceType, packet.deviceType != 0xFFFF, packet.deviceType != type {
            return nil
        }
        if let revision = configuration.legacyDeviceRevision, packet.deviceRevision != 0xFFFF,
            packet.deviceRevision != revision
        {
            return nil
        }
        guard
            packet.softdeviceRequired.contains(0xFFFE)
                || packet.softdeviceRequired.contains(core.softDeviceID)
        else { return nil }
        if let length = packet.firmwareLength, Int(length) != layout.total { return nil }
        return packet
    }

    // MARK: Packet

    mutating func packet(_ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore) -> DeviceOutput {
        switch phase {
        case .awaitingSizes(let type):
            return sizes(bytes, type: type, at: time, core: &core)
        case .receivingInit:
            if initBytes.count + bytes.count <= Self.maximumInitPacketSize { initBytes += bytes }
            return .none
        case .receivingImage:
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

    private mutating func imageData(_ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore)
        -> DeviceOutput
    {
        let opCode = LegacyDFURequest.receiveFirmwareImage.opCode
        let isLast = received + bytes.count == layout.total
        guard bytes.count % 4 == 0 || isLast else {
            self = LegacyBootloader(prn: prn)
            return respond(opCode, .notSupported, at: time)
        }
        guard received + bytes.count <= layout.total else {
            self = LegacyBootloader(prn: prn)
            return respond(opCode, .dataSizeExceedsLimit, at: time)
        }
        staging!.append(bytes[...])
        core.flash.perform(taking: core.timing.writeTime(bytes: bytes.count).nanoseconds, at: time)
        var output = DeviceOutput()
        packetsSinceReceipt += 1
        if prn > 0, packetsSinceReceipt >= prn {
            packetsSinceReceipt = 0
            output.notifications.append(
                PendingNotification(
                    characteristic: uuids.legacyControlPoint,
                    value: LegacyDFUResponse.packetReceipt(bytesReceived: UInt32(received)).encoded,
                    readyAt: time))
        }
        if isLast {
            phase = .imageReceived
            output.notifications.append(
                PendingNotification(
                    characteristic: uuids.legacyControlPoint,
                    value: LegacyDFUResponse.response(opCode: opCode, status: .success).encoded,
                    readyAt: core.flash.busyUntil))
        }
        output.dropsLink = core.linkDropsAfterReceiving(received)
        return output
    }

    private init(prn: UInt16) { self.prn = prn }

    init() {}
}
