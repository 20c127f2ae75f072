import DFUSupport

/// Result codes of Secure DFU responses (protocol doc §2.3).
public enum SecureDFUResultCode: UInt8, Sendable {
    case invalidOpCode = 0x00
    case success = 0x01
    case opCodeNotSupported = 0x02
    case invalidParameter = 0x03
    case insufficientResources = 0x04
    case invalidObject = 0x05
    case signatureMismatch = 0x06
    case unsupportedType = 0x07
    case operationNotPermitted = 0x08
    case operationFailed = 0x0A
    case extendedError = 0x0B
}

/// Extended error codes, sent after result 0x0B (`nrf_dfu_ext_error_code_t`).
public enum SecureDFUExtendedError: UInt8, Sendable {
    case noError = 0x00
    case invalidErrorCode = 0x01
    case wrongCommandFormat = 0x02
    case unknownCommand = 0x03
    case initCommandInvalid = 0x04
    case firmwareVersionFailure = 0x05
    case hardwareVersionFailure = 0x06
    case softDeviceVersionFailure = 0x07
    case signatureMissing = 0x08
    case wrongHashType = 0x09
    case hashFailed = 0x0A
    case wrongSignatureType = 0x0B
    case verificationFailed = 0x0C
    case insufficientSpace = 0x0D
}

/// A notification on the Secure DFU control point: `60 <op code> <result> [payload]`.
///
/// A packet receipt notification is byte-identical to a Calculate Checksum response, so it
/// decodes as `.checksum`; the caller knows from its state which one it waits for.
public struct SecureDFUResponse: Equatable, Sendable {
    public static let responseCode: UInt8 = 0x60

    /// The op code of the request this answers.
    public var opCode: UInt8
    public var outcome: Outcome

    public enum Outcome: Equatable, Sendable {
        /// Success without a payload this client uses.
        case success
        /// Select: the object's maximum size, and the offset and CRC-32 the device holds.
        case selected(maximumSize: UInt32, offset: UInt32, crc: UInt32)
        /// Calculate Checksum (or a packet receipt notification): offset and CRC-32 of the stream.
        case checksum(offset: UInt32, crc: UInt32)
        /// Any result other than success; `extended` is set for result 0x0B.
        case failure(SecureDFUResultCode, extended: SecureDFUExtendedError?)
    }

    public init(opCode: UInt8, outcome: Outcome) {
        self.opCode = opCode
        self.outcome = outcome
    }

    public var encoded: [UInt8] {
        var bytes = [Self.responseCode, opCode]
        switch outcome {
        case .success:
            bytes.append(SecureDFUResultCode.success.rawValue)
        case .selected(let maximumSize, let offset, let crc):
            bytes.append(SecureDFUResultCode.success.rawValue)
            bytes.appendLittleEndian(maximumSize)
            bytes.appendLittleEndian(offset)
            bytes.appendLittleEndian(crc)
        case .checksum(let offset, let crc):
            bytes.append(SecureDFUResultCode.success.rawValue)
            bytes.appendLittleEndian(offset)
            bytes.appendLittleEndian(crc)
        case .failure(let result, let extended):
            bytes.append(result.rawValue)
            if let extended { bytes.append(extended.rawValue) }
        }
        return bytes
    }

    /// Decodes a control-point notification. Trailing bytes after the known payload are ignored,
    /// as newer bootloaders may send more.
    public init(decoding bytes: [UInt8]) throws(WireFormatError) {
        var reader = ByteReader(bytes)
        guard reader.readUInt8() == Self.responseCode, let opCode = reader.readUInt8(),
            let resultByte = reader.readUInt8()
        else { throw WireFormatError("not a Secure DFU response", bytes: bytes) }
        guard let result = SecureDFUResultCode(rawValue: resultByte) else {
            throw WireFormatError("unknown Secure DFU result code", bytes: bytes)
        }
        self.opCode = opCode
        switch result {
        case .success:
            switch opCode {
            case SecureDFURequest.select(.command).opCode:
                guard let maximumSize = reader.readUInt32(), let offset = reader.readUInt32(),
                    let crc = reader.readUInt32()
                else { throw WireFormatError("Select response too short", bytes: bytes) }
                outcome = .selected(maximumSize: maximumSize, offset: offset, crc: crc)
            case SecureDFURequest.calculateChecksum.opCode:
                guard let offset = reader.readUInt32(), let crc = reader.readUInt32() else {
                    throw WireFormatError("Calculate Checksum response too short", bytes: bytes)
                }
                outcome = .checksum(offset: offset, crc: crc)
            default:
                outcome = .success
            }
        case .extendedError:
            guard let raw = reader.readUInt8() else {
                throw WireFormatError("extended error without its code", bytes: bytes)
            }
            guard let extended = SecureDFUExtendedError(rawValue: raw) else {
                throw WireFormatError("unknown extended error code", bytes: bytes)
            }
            outcome = .failure(.extendedError, extended: extended)
        default:
            outcome = .failure(result, extended: nil)
        }
    }
}
