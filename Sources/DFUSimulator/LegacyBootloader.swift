import GATT
import NordicDFU

/// The RAM state and behaviour of an SDK 7–11 Legacy DFU bootloader, dual bank (protocol doc §1;
/// docs/simulator.md lists each behaviour with the SDK 11 function it follows). There is no
/// resume: a dropped link or a reset loses the transfer.
struct LegacyBootloader: Bootloader {
    typealias Response = LegacyDFUResponse

    /// The largest init packet the bootloader buffers (`dfu_dual_bank.c`: `m_init_packet[128]`).
    static let maximumInitPacketSize = 128

    private static let uuids = DFUUUIDs()
    static var controlPoint: BluetoothUUID { uuids.legacyControlPoint }
    static var packetCharacteristic: BluetoothUUID { uuids.legacyPacket }

    enum Phase {
        case idle
        case awaitingSizes(LegacyImageType)
        case started
        case receivingInit
        case initValidated
        case receivingImage
        case imageReceived
        case validated(ValidatedImage)
        /// Too much image data or a failed validation: nothing but a reset helps
        /// (`dfu_data_pkt_handle` poisons the byte count; `dfu_image_validate` leaves the state
        /// at validating).
        case failed
    }

    var phase = Phase.idle
    var layout = ImageLayout()
    var initBytes: [UInt8] = []
    var initPacket: LegacyInitPacket?
    var staging: StagingArea?
    /// The PRN interval (0: off) and the image packets left until the next PRN
    /// (`dfu_transport_ble.c`: `m_pkt_notif_target`, `m_pkt_notif_target_cnt`).
    var prn: UInt16 = 0
    var prnCountdown: UInt16 = 0

    var received: Int { staging?.count ?? 0 }

    /// The link dropped: the transfer is lost.
    mutating func linkDropped() {
        self = LegacyBootloader()
    }

    static func request(decoding bytes: [UInt8]) throws(LegacyDFURequest.Rejection) -> LegacyDFURequest {
        try LegacyDFURequest(decoding: bytes)
    }

    static func response(rejecting rejection: LegacyDFURequest.Rejection) -> LegacyDFUResponse {
        .response(opCode: rejection.opCode, status: rejection.status)
    }

    // MARK: Control point

    mutating func handle(_ request: LegacyDFURequest, at time: Nanoseconds, core: inout DeviceCore)
        -> DeviceOutput
    {
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
            // 0 turns PRNs off; any other value restarts the count.
            prn = n
            prnCountdown = n
            return .none
        case .receiveFirmwareImage:
            guard case .initValidated = phase else { return respond(opCode, .invalidState, at: time) }
            phase = .receivingImage
            staging = StagingArea(layout: layout)
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
                phase = .failed
                return respond(opCode, .crcError, at: checkedAt)
            }
            phase = .validated(image)
            return core.finalAnswerIsLost() ? .none : respond(opCode, .success, at: checkedAt)
        case .activateAndReset:
            // Without a validated image, `dfu_image_activate` fails and the bootloader resets.
            guard case .validated(let image) = phase else { return .reset(to: .applicationIfValid) }
            core.install(image)
            // After a SoftDevice or bootloader the new bootloader starts without peer data.
            let target: BootTarget =
                image.layout.application > 0 ? .applicationIfValid : .bootloader(keepsAddress: false)
            return .reset(to: target, after: core.timing.activationTime(bytes: image.bytes.count).nanoseconds)
        case .reset:
            return .reset(to: .applicationIfValid)
        case .reportReceivedImageSize:
            return respond(.receivedImageSize(UInt32(received)), at: time)
        }
    }

    func respond(_ opCode: UInt8, _ status: LegacyDFUStatus, at time: Nanoseconds) -> DeviceOutput {
        respond(.response(opCode: opCode, status: status), at: time)
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

    init() {}
}
