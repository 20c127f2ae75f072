import DFUSupport

/// The two kinds of object a Secure DFU bootloader stores.
public enum SecureObjectType: UInt8, Sendable {
    /// The init packet.
    case command = 1
    /// The firmware image, sent in objects of at most the bootloader's maximum size.
    case data = 2
}

/// A request written to the Secure DFU control point (protocol doc §2.2).
public enum SecureDFURequest: Equatable, Sendable {
    case protocolVersion
    case create(SecureObjectType, size: UInt32)
    /// Packet receipt notification every `n` packet writes; 0 turns them off.
    case setPacketReceiptNotification(UInt16)
    case calculateChecksum
    case execute
    case select(SecureObjectType)
    case getMTU
    case ping(UInt8)
    case getHardwareVersion
    case getFirmwareVersion(imageIndex: UInt8)
    case abort

    /// The request's op code, which its response echoes.
    public var opCode: UInt8 {
        switch self {
        case .protocolVersion: 0x00
        case .create: 0x01
        case .setPacketReceiptNotification: 0x02
        case .calculateChecksum: 0x03
        case .execute: 0x04
        case .select: 0x06
        case .getMTU: 0x07
        case .ping: 0x09
        case .getHardwareVersion: 0x0A
        case .getFirmwareVersion: 0x0B
        case .abort: 0x0C
        }
    }

    public var encoded: [UInt8] {
        var bytes = [opCode]
        switch self {
        case .create(let type, let size):
            bytes.append(type.rawValue)
            bytes.appendLittleEndian(size)
        case .setPacketReceiptNotification(let n): bytes.appendLittleEndian(n)
        case .select(let type): bytes.append(type.rawValue)
        case .ping(let id): bytes.append(id)
        case .getFirmwareVersion(let index): bytes.append(index)
        case .protocolVersion, .calculateChecksum, .execute, .getMTU, .getHardwareVersion, .abort:
            break
        }
        return bytes
    }

    /// Decodes a control-point write, as a bootloader does. Throws `SecureDFURequest.Rejection`
    /// carrying the result code a bootloader answers with.
    public init(decoding bytes: [UInt8]) throws(Rejection) {
        var reader = ByteReader(bytes)
        guard let opCode = reader.readUInt8() else { throw Rejection(opCode: 0, result: .invalidOpCode) }
        func objectType() throws(Rejection) -> SecureObjectType {
            guard let raw = reader.readUInt8() else {
                throw Rejection(opCode: opCode, result: .invalidParameter)
            }
            guard let type = SecureObjectType(rawValue: raw) else {
                throw Rejection(opCode: opCode, result: .unsupportedType)
            }
            return type
        }
        func uint32() throws(Rejection) -> UInt32 {
            guard let value = reader.readUInt32() else {
                throw Rejection(opCode: opCode, result: .invalidParameter)
            }
            return value
        }
        switch opCode {
        case 0x00: self = .protocolVersion
        case 0x01:
            let type = try objectType()
            self = .create(type, size: try uint32())
        case 0x02:
            guard let n = reader.readUInt16() else {
                throw Rejection(opCode: opCode, result: .invalidParameter)
            }
            self = .setPacketReceiptNotification(n)
        case 0x03: self = .calculateChecksum
        case 0x04: self = .execute
        case 0x06: self = .select(try objectType())
        case 0x07: self = .getMTU
        case 0x09:
            guard let id = reader.readUInt8() else {
                throw Rejection(opCode: opCode, result: .invalidParameter)
            }
            self = .ping(id)
        case 0x0A: self = .getHardwareVersion
        case 0x0B:
            guard let index = reader.readUInt8() else {
                throw Rejection(opCode: opCode, result: .invalidParameter)
            }
            self = .getFirmwareVersion(imageIndex: index)
        case 0x0C: self = .abort
        default: throw Rejection(opCode: opCode, result: .opCodeNotSupported)
        }
    }

    /// Why a bootloader refuses a control-point write before acting on it.
    public struct Rejection: Error, Equatable, Sendable {
        public var opCode: UInt8
        public var result: SecureDFUResultCode
    }
}
