import DFUSupport
import GATT
import NordicDFU

/// Sends one part over Legacy DFU (protocol doc §1.7). Legacy DFU cannot resume: a part that
/// fails midway is sent again from the start.
struct LegacyFirmwareTransfer: FirmwareTransfer {
    let session: UpdateSession
    let part: DFUImage
    let controlPoint: LegacyControlPoint
    let streamer: PacketStreamer
    /// The bootloader's DFU Version, when it has the characteristic.
    let version: LegacyDFUVersion?
    let meter: ProgressMeter
    private(set) var finishedAt: Duration = .zero

    /// The packet receipt interval used when the user chose none (see `DFUOptions`).
    static let defaultPacketReceiptNotifications: UInt16 = 10

    init(
        session: UpdateSession, part: DFUImage, controlPoint: LegacyControlPoint, streamer: PacketStreamer,
        version: LegacyDFUVersion?, meter: ProgressMeter
    ) {
        self.session = session
        self.part = part
        self.controlPoint = controlPoint
        self.streamer = streamer
        self.version = version
        self.meter = meter
    }

    private var options: DFUOptions { session.options }

    var abortRequest: [UInt8] { LegacyDFURequest.reset.encoded }

    /// Legacy DFU cannot resume: the bootloader drops the transfer before any restart.
    func abortsAfter(_ failure: DFUFailure?) -> Bool { true }

    mutating func run() async throws -> FirmwareTransferOutcome {
        try await start()
        if let initPacket = part.initPacket {
            try await controlPoint.write(.initParametersBegin)
            try await streamer.write(initPacket[...], firmware: false)
            try await controlPoint.write(.initParametersComplete)
            try await controlPoint.require(.initParametersComplete)
        } else if let version, version >= LegacyDFUVersion(major: 0, minor: 5) {
            throw session.failure(
                .extendedInitPacketRequired, "the bootloader (DFU version \(version)) requires an init packet"
            )
        }
        let prn = options.nordic.packetReceiptNotifications ?? Self.defaultPacketReceiptNotifications
        try await controlPoint.write(.packetReceiptNotificationRequest(prn))
        try await controlPoint.write(.receiveFirmwareImage)
        session.state(.uploading)
        if let report = meter.start(at: 0) { session.emit(.progress(report)) }
        try await stream()
        try await controlPoint.require(.receiveFirmwareImage)
        session.state(.validating)
        try await controlPoint.write(.validateFirmware)
        try await controlPoint.require(.validateFirmware)
        finishedAt = session.linkTime.now()
        session.state(.disconnecting)
        // The device resets at once; a failed write or a dropped link is the expected answer.
        try? await controlPoint.write(.activateAndReset)
        return .sent
    }

    /// Start DFU with the size packet; falls back to the "DFU v1" form for an application when
    /// the bootloader does not know the image type (§1.5).
    private func start() async throws {
        if version == nil {
            // SDK <= 6.1 bootloaders need time after a reset before Start DFU (§3).
            try await session.linkTime.sleep(for: .seconds(1))
        }
        let request = LegacyDFURequest.startDFU(part.kind.legacyImageType)
        try await controlPoint.write(request)
        let sizes = part.sizes
        let sizePacket = LegacyImageSizes(
            softdevice: sizes.softdevice, bootloader: sizes.bootloader, application: sizes.application)
        try await streamer.write(sizePacket.encoded[...], firmware: false)
        let status = try await controlPoint.status(of: request)
        switch status {
        case .success:
            return
        case .notSupported where part.kind == .application:
            session.log(.info, "the bootloader does not know the image type; using DFU v1 Start")
            try await controlPoint.write(.startDFUVersion1)
            var size: [UInt8] = []
            size.appendLittleEndian(UInt32(part.firmware.count))
            try await streamer.write(size[...], firmware: false)
            try await controlPoint.require(.startDFUVersion1)
        default:
            throw controlPoint.remoteFailure(request, status: status)
        }
    }

    /// Streams the image, checking each packet receipt against the bytes sent. The packet that
    /// completes the image gets the Receive Firmware Image response and no receipt: a stock
    /// SDK ≤ 11 bootloader counts receipts only while more data is expected
    /// (`dfu_transport_ble.c`, `app_data_process`), even when the packet count is a multiple of
    /// the interval.
    private func stream() async throws {
        let image = part.firmware
        let end = try await streamer.stream(
            image[...], through: controlPoint.channel, meter: meter, receiptOnLastPacket: false
        ) { notification, sentUpTo in
            switch notification {
            case .packetReceipt(let received):
                // SDK 5.2 bootloaders fill only the low 16 bits (§1.4).
                let sent = UInt32(sentUpTo)
                guard received == sent || (received <= 0xFFFF && received == sent & 0xFFFF) else {
                    throw session.failure(
                        .bytesLost, "the device received \(received) bytes, \(sentUpTo) were sent")
                }
                return true
            case .response(let opCode, let status) where status != .success:
                throw session.failure(
                    DFUError(legacyStatus: status),
                    "the bootloader answered op code \(opCode) with status \(status)")
            default:
                throw session.failure(.unsupportedResponse, "expected a packet receipt, got \(notification)")
            }
        }
        guard case .finished = end else {
            throw session.failure(
                .receivingNotificationFailed, "a packet receipt notification did not arrive")
        }
    }
}

extension DFUImageKind {
    /// The Legacy Start DFU image type of an image of this kind.
    var legacyImageType: LegacyImageType {
        switch self {
        case .softdevice: .softdevice
        case .bootloader: .bootloader
        case .softdeviceBootloader: [.softdevice, .bootloader]
        case .application: .application
        }
    }
}
