import DFUSupport

/// The image-type bit mask of Legacy DFU's Start DFU request (protocol doc §1.5).
public struct LegacyImageType: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let softdevice = LegacyImageType(rawValue: 0x01)
    public static let bootloader = LegacyImageType(rawValue: 0x02)
    public static let application = LegacyImageType(rawValue: 0x04)
}

/// A request written to the Legacy DFU control point (protocol doc §1.3).
public enum LegacyDFURequest: Equatable, Sendable {
    /// `01 TT`; the 12-byte size packet follows on the packet characteristic.
    case startDFU(LegacyImageType)
    /// `01` alone: the "DFU v1" form of SDK ≤ 6.0; a 4-byte application size follows.
    case startDFUVersion1
    /// `02 00`: init packet chunks follow on the packet characteristic.
    case initParametersBegin
    /// `02 01`: the init packet is complete.
    case initParametersComplete
    case receiveFirmwareImage
    case validateFirmware
    case activateAndReset
    case reset
    case reportReceivedImageSize
    /// Packet receipt notification every `n` packets; 0 turns them off.
    case packetReceiptNotificationRequest(UInt16)

    public var opCode: UInt8 {
        switch self {
        case .startDFU, .startDFUVersion1: 0x01
        case .initParametersBegin, .initParametersComplete: 0x02
        case .receiveFirmwareImage: 0x03
        case .validateFirmware: 0x04
        case .activateAndReset: 0x05
        case .reset: 0x06
        case .reportReceivedImageSize: 0x07
        case .packetReceiptNotificationRequest: 0x08
        }
    }

    public var encoded: [UInt8] {
        switch self {
        case .startDFU(let type): [opCode, type.rawValue]
        case .initParametersBegin: [opCode, 0x00]
        case .initParametersComplete: [opCode, 0x01]
        case .packetReceiptNotificationRequest(let n):
            [opCode, UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8)]
        case .startDFUVersion1, .receiveFirmwareImage, .validateFirmware, .activateAndReset, .reset,
            .reportReceivedImageSize:
            [opCode]
        }
    }

    /// Decodes a control-point write as a bootloader does; a rejection carries the status the
    /// SDK 11 bootloader answers with.
    public init(decoding bytes: [UInt8]) throws(Rejection) {
        guard let opCode = bytes.first else { throw Rejection(opCode: 0, status: .notSupported) }
        switch (opCode, bytes.count) {
        case (0x01, 1): self = .startDFUVersion1
        case (0x01, _): self = .startDFU(LegacyImageType(rawValue: bytes[1]))
        case (0x02, 1): throw Rejection(opCode: opCode, status: .operationFailed)
        case (0x02, _) where bytes[1] == 0x00: self = .initParametersBegin
        case (0x02, _) where bytes[1] == 0x01: self = .initParametersComplete
        case (0x03, _): self = .receiveFirmwareImage
        case (0x04, _): self = .validateFirmware
        case (0x05, _): self = .activateAndReset
        case (0x06, _): self = .reset
        case (0x07, _): self = .reportReceivedImageSize
        case (0x08, 3...): self = .packetReceiptNotificationRequest(UInt16(bytes[1]) | UInt16(bytes[2]) << 8)
        default: throw Rejection(opCode: opCode, status: .notSupported)
        }
    }

    public struct Rejection: Error, Equatable, Sendable {
        public var opCode: UInt8
        public var status: LegacyDFUStatus
    }
}

/// The 12-byte packet that follows Start DFU: SoftDevice, bootloader and application sizes.
public struct LegacyImageSizes: Equatable, Sendable {
    public var softdevice: UInt32
    public var bootloader: UInt32
    public var application: UInt32

    public init(softdevice: UInt32 = 0, bootloader: UInt32 = 0, application: UInt32 = 0) {
        self.softdevice = softdevice
        self.bootloader = bootloader
        self.application = application
    }

    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(softdevice)
        bytes.appendLittleEndian(bootloader)
        bytes.appendLittleEndian(application)
        return bytes
    }

    /// `nil` unless `bytes` is exactly 12 bytes long, as the bootloader requires.
    public init?(decoding bytes: [UInt8]) {
        guard bytes.count == 12 else { return nil }
        var reader = ByteReader(bytes)
        softdevice = reader.readUInt32()!
        bootloader = reader.readUInt32()!
        application = reader.readUInt32()!
    }
}
