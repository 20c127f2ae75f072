/// What an SMP frame asks or answers (`mcumgr_op_t`, Zephyr `mgmt_defines.h`).
public enum SMPOperation: UInt8, Hashable, Sendable {
    case read = 0
    case readResponse = 1
    case write = 2
    case writeResponse = 3

    /// Whether a server sends this operation.
    public var isResponse: Bool { self == .readResponse || self == .writeResponse }

    /// The operation that answers this request (itself for a response).
    public var response: SMPOperation {
        switch self {
        case .read, .readResponse: .readResponse
        case .write, .writeResponse: .writeResponse
        }
    }
}

/// The SMP protocol version in the header's `Ver` bits.
public enum SMPVersion: UInt8, Hashable, Sendable {
    /// 0b00, the original protocol: every error is an MCUmgr `rc`.
    case v1 = 0
    /// 0b01: group errors come as `err: {group, rc}`; SMP-level errors stay `rc`.
    case v2 = 1
}

/// A management group id (`mcumgr_group_t`).
public struct SMPGroup: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Group 0: echo, reset, MCUmgr parameters.
    public static let os = SMPGroup(rawValue: 0)
    /// Group 1: image state, upload, erase.
    public static let image = SMPGroup(rawValue: 1)
    /// Group 63, Zephyr's basic group: erase storage (`ZEPHYR_MGMT_GRP_BASIC`).
    public static let zephyrBasic = SMPGroup(rawValue: 63)

    public var description: String {
        switch self {
        case .os: "OS group (0)"
        case .image: "image group (1)"
        case .zephyrBasic: "Zephyr basic group (63)"
        default: "group \(rawValue)"
        }
    }
}

/// The 8-byte SMP header, big-endian (Zephyr `smp_protocol.rst`):
/// `Res(3) Ver(2) OP(3) | Flags | Length(16) | Group(16) | Sequence | Command`.
public struct SMPHeader: Hashable, Sendable {
    /// Bytes in an encoded header.
    public static let size = 8

    public var operation: SMPOperation
    public var version: SMPVersion
    /// No flag is defined yet; Zephyr sends 0.
    public var flags: UInt8
    /// Bytes of CBOR payload after the header.
    public var length: UInt16
    public var group: SMPGroup
    /// A response repeats its request's sequence number.
    public var sequence: UInt8
    /// The command within the group.
    public var command: UInt8

    public init(
        operation: SMPOperation, version: SMPVersion, flags: UInt8 = 0, length: UInt16, group: SMPGroup,
        sequence: UInt8, command: UInt8
    ) {
        self.operation = operation
        self.version = version
        self.flags = flags
        self.length = length
        self.group = group
        self.sequence = sequence
        self.command = command
    }

    public var encoded: [UInt8] {
        [
            version.rawValue << 3 | operation.rawValue, flags,
            UInt8(length >> 8), UInt8(truncatingIfNeeded: length),
            UInt8(group.rawValue >> 8), UInt8(truncatingIfNeeded: group.rawValue),
            sequence, command,
        ]
    }

    /// Decodes the first ``size`` bytes of `bytes`; what follows is not looked at. Reserved bits
    /// and the reserved versions 0b10 and 0b11 are refused.
    public init(decoding bytes: ArraySlice<UInt8>) throws(SMPFrameError) {
        guard bytes.count >= Self.size else {
            throw SMPFrameError("SMP header shorter than 8 bytes", bytes: Array(bytes))
        }
        let start = bytes.startIndex
        let first = bytes[start]
        guard first & 0xE0 == 0 else {
            throw SMPFrameError("SMP header with reserved bits set", bytes: Array(bytes.prefix(Self.size)))
        }
        guard let version = SMPVersion(rawValue: first >> 3 & 0x03) else {
            throw SMPFrameError("SMP header of a reserved version", bytes: Array(bytes.prefix(Self.size)))
        }
        guard let operation = SMPOperation(rawValue: first & 0x07) else {
            throw SMPFrameError("SMP header with an unknown op", bytes: Array(bytes.prefix(Self.size)))
        }
        self.operation = operation
        self.version = version
        flags = bytes[start + 1]
        length = UInt16(bytes[start + 2]) << 8 | UInt16(bytes[start + 3])
        group = SMPGroup(rawValue: UInt16(bytes[start + 4]) << 8 | UInt16(bytes[start + 5]))
        sequence = bytes[start + 6]
        command = bytes[start + 7]
    }
}
