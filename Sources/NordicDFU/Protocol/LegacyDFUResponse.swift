import DFUSupport

/// Status codes of Legacy DFU responses (protocol doc §1.4).
public enum LegacyDFUStatus: UInt8, Sendable {
    case success = 0x01
    case invalidState = 0x02
    case notSupported = 0x03
    case dataSizeExceedsLimit = 0x04
    case crcError = 0x05
    case operationFailed = 0x06
}

/// A notification on the Legacy DFU control point.
public enum LegacyDFUResponse: Equatable, Sendable {
    /// `10 <request op code> <status>`.
    case response(opCode: UInt8, status: LegacyDFUStatus)
    /// `11 <uint32>`: firmware bytes received so far.
    case packetReceipt(bytesReceived: UInt32)
    /// `10 07 01 <uint32>`: answer to Report Received Image Size.
    case receivedImageSize(UInt32)

    /// The first byte of a response.
    public static let responseCode: UInt8 = 0x10
    /// The first byte of a packet receipt notification.
    public static let packetReceiptCode: UInt8 = 0x11

    public var encoded: [UInt8] {
        var bytes: [UInt8]
        switch self {
        case .response(let opCode, let status):
            bytes = [Self.responseCode, opCode, status.rawValue]
        case .packetReceipt(let count):
            bytes = [Self.packetReceiptCode]
            bytes.appendLittleEndian(count)
        case .receivedImageSize(let count):
            bytes = [
                Self.responseCode, LegacyDFURequest.reportReceivedImageSize.opCode,
                LegacyDFUStatus.success.rawValue,
            ]
            bytes.appendLittleEndian(count)
        }
        return bytes
    }

    public init(decoding bytes: [UInt8]) throws(WireFormatError) {
        var reader = ByteReader(bytes)
        switch reader.readUInt8() {
        case Self.responseCode:
            guard let opCode = reader.readUInt8(), let raw = reader.readUInt8() else {
                throw WireFormatError("Legacy DFU response too short", bytes: bytes)
            }
            guard let status = LegacyDFUStatus(rawValue: raw) else {
                throw WireFormatError("unknown Legacy DFU status", bytes: bytes)
            }
            if opCode == LegacyDFURequest.reportReceivedImageSize.opCode, status == .success {
                guard let count = reader.readUInt32(), reader.remaining == 0 else {
                    throw WireFormatError("malformed received-size response", bytes: bytes)
                }
                self = .receivedImageSize(count)
            } else {
                guard reader.remaining == 0 else {
                    throw WireFormatError("Legacy DFU response is not 3 bytes", bytes: bytes)
                }
                self = .response(opCode: opCode, status: status)
            }
        case Self.packetReceiptCode:
            guard let count = reader.readUInt32(), reader.remaining == 0 else {
                throw WireFormatError("malformed packet receipt notification", bytes: bytes)
            }
            self = .packetReceipt(bytesReceived: count)
        default:
            throw WireFormatError("not a Legacy DFU notification", bytes: bytes)
        }
    }
}
