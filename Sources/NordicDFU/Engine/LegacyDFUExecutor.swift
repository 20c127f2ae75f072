import GATT

/// Sends one part over Legacy DFU (protocol doc §1.7). Legacy DFU cannot resume: a part that
/// fails midway is sent again from the start.
struct LegacyDFUExecutor {
    let session: UpdateSession
    let part: DFUImage
    let controlPoint: LegacyControlPoint
    let sender: PacketSender
    /// The bootloader's DFU Version, when it has the characteristic.
    let version: LegacyDFUVersion?
    var meter: ProgressMeter
    /// When the device confirmed the image (link time).
    var validatedAt: Duration = .zero

    /// The packet receipt interval used when the user chose none (see `DFUOptions`).
    static let defaultPacketReceiptNotifications: UInt16 = 10

    private var options: DFUOptions { session.options }

    mutating func run() async throws {
        let image = part.firmware
        try await start()
        if let initPacket = part.initPacket {
            try await controlPoint.write(.initParametersBegin)
            try await sendPackets(initPacket[...], firmware: false)
            try await controlPoint.write(.initParametersComplete)
            try await controlPoint.requireResponse(to: 0x02, timeout: options.responseTimeout)
        } else if let version, version >= LegacyDFUVersion(major: 0, minor: 5) {
            throw session.failure(
                .extendedInitPacketRequired, "the bootloader (DFU version \(version)) requires an init packet"
            )
        }
        let prn = options.packetReceiptNotifications ?? Self.defaultPacketReceiptNotifications
        try await controlPoint.write(.packetReceiptNotificationRequest(prn))
        try await controlPoint.write(.receiveFirmwareImage)
        session.state(.uploading)
        if let report = meter.start(at: 0) { session.emit(.progress(report)) }
        try await stream(image, prn: Int(prn))
        try await controlPoint.requireResponse(to: 0x03, timeout: options.responseTimeout)
        session.state(.validating)
        try await controlPoint.write(.validateFirmware)
        try await controlPoint.requireResponse(to: 0x04, timeout: options.responseTimeout)
        validatedAt = session.linkTime.now()
        session.state(.disconnecting)
        // The device resets at once; a failed write or a dropped link is the expected answer.
        try? await controlPoint.write(.activateAndReset)
    }

    /// Start DFU with the size packet; falls back to the "DFU v1" form for an application when
    /// the bootloader does not know the image type (§1.5).
    private func start() async throws {
        if version == nil {
            // SDK <= 6.1 bootloaders need time after a reset before Start DFU (§3).
            try await session.linkTime.sleep(for: .seconds(1))
        }
        try await controlPoint.write(.startDFU(part.kind.legacyImageType))
        let sizes = part.sizes
        let sizePacket = LegacyImageSizes(
            softdevice: sizes.softdevice, bootloader: sizes.bootloader, application: sizes.application)
        try await sendPackets(sizePacket.encoded[...], firmware: false)
        let status = try await controlPoint.response(to: 0x01, timeout: options.responseTimeout)
        switch status {
        case .success:
            return
        case .notSupported where part.kind == .application:
            session.log(.info, "the bootloader does not know the image type; using DFU v1 Start")
            try await controlPoint.write(.startDFUVersion1)
            var size: [UInt8] = []
            size.appendLittleEndian(UInt32(part.firmware.count))
            try await sendPackets(size[...], firmware: false)
            try await controlPoint.requireResponse(to: 0x01, timeout: options.responseTimeout)
        default:
            throw controlPoint.remoteFailure(opCode: 0x01, status: status)
        }
    }

    /// Streams the image, checking each packet receipt against the bytes sent.
    private mutating func stream(_ image: [UInt8], prn: Int) async throws {
        let batchPackets = prn > 0 ? prn : 16
        var start = 0
        while start < image.count {
            try await session.controller.checkpoint()
            let end = min(start + batchPackets * sender.packetSize, image.count)
            try await sendPackets(image[start..<end], firmware: true)
            start = end
            if let report = meter.update(end) { session.emit(.progress(report)) }
            guard prn > 0, sender.packets(for: end) % prn == 0 else { continue }
            let received = try await controlPoint.packetReceipt(timeout: options.notificationTimeout)
            // SDK 5.2 bootloaders fill only the low 16 bits (§1.4).
            guard received == UInt32(end) || (received <= 0xFFFF && received == UInt32(end) & 0xFFFF) else {
                throw session.failure(.bytesLost, "the device received \(received) bytes, \(end) were sent")
            }
        }
    }

    private func sendPackets(_ bytes: ArraySlice<UInt8>, firmware: Bool) async throws {
        let sender = sender
        let counter = firmware ? session.firmwareBytesWritten : nil
        do {
            try await withRealTimeout(options.notificationTimeout, waitingFor: "packet writes") {
                try await sender.send(bytes, counter: counter)
            }
        } catch {
            throw session.mapped(error, during: .writingCharacteristicFailed)
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
