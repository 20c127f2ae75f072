/// A request written to a buttonless DFU characteristic in application mode (protocol doc §2.9).
public enum ButtonlessDFURequest: Equatable, Sendable {
    case enterBootloader
    /// The name the bootloader will advertise; 1 to 20 bytes of UTF-8.
    case setAdvertisementName([UInt8])

    /// The longest name the bootloader stores.
    public static let maximumNameLength = 20

    public var opCode: UInt8 {
        switch self {
        case .enterBootloader: 0x01
        case .setAdvertisementName: 0x02
        }
    }

    public var encoded: [UInt8] {
        switch self {
        case .enterBootloader: [opCode]
        case .setAdvertisementName(let name): [opCode, UInt8(truncatingIfNeeded: name.count)] + name
        }
    }

    /// `name` as UTF-8, cut to at most 20 bytes on a character boundary.
    public static func advertisementName(_ name: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for character in name {
            let utf8 = Array(character.utf8)
            guard bytes.count + utf8.count <= maximumNameLength else { break }
            bytes += utf8
        }
        return bytes
    }

    /// Decodes a write as the application's buttonless service does.
    public init(decoding bytes: [UInt8]) throws(Rejection) {
        switch bytes.first {
        case Self.enterBootloader.opCode: self = .enterBootloader
        case Self.setAdvertisementName([]).opCode:
            guard bytes.count >= 2, Int(bytes[1]) == bytes.count - 2,
                (1...Self.maximumNameLength).contains(bytes.count - 2)
            else { throw Rejection(opCode: bytes[0], result: .invalidAdvertisementName) }
            self = .setAdvertisementName(Array(bytes[2...]))
        default:
            throw Rejection(opCode: bytes.first ?? 0, result: .opCodeNotSupported)
        }
    }

    public struct Rejection: Error, Equatable, Sendable {
        public var opCode: UInt8
        public var result: ButtonlessDFUResult
    }
}

/// Result codes of buttonless DFU responses.
public enum ButtonlessDFUResult: UInt8, Sendable {
    case success = 0x01
    case opCodeNotSupported = 0x02
    case operationFailed = 0x04
    case invalidAdvertisementName = 0x05
    case busy = 0x06
    case notBonded = 0x07
}

/// An indication (or, for SDK 12's experimental service, a notification): `20 <op code> <result>`.
public struct ButtonlessDFUResponse: Equatable, Sendable {
    public var opCode: UInt8
    public var result: ButtonlessDFUResult

    public init(opCode: UInt8, result: ButtonlessDFUResult) {
        self.opCode = opCode
        self.result = result
    }

    public var encoded: [UInt8] { [0x20, opCode, result.rawValue] }

    public init(decoding bytes: [UInt8]) throws(WireFormatError) {
        guard bytes.count >= 3, bytes[0] == 0x20 else {
            throw WireFormatError("not a buttonless DFU response", bytes: bytes)
        }
        guard let result = ButtonlessDFUResult(rawValue: bytes[2]) else {
            throw WireFormatError("unknown buttonless DFU result", bytes: bytes)
        }
        self.init(opCode: bytes[1], result: result)
    }
}

/// The value of the Legacy DFU Version characteristic: byte 0 minor, byte 1 major.
public struct LegacyDFUVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var major: UInt8
    public var minor: UInt8

    public init(major: UInt8, minor: UInt8) {
        self.major = major
        self.minor = minor
    }

    /// `nil` unless exactly 2 bytes, as the reference libraries require.
    public init?(decoding bytes: [UInt8]) {
        guard bytes.count == 2 else { return nil }
        self.init(major: bytes[1], minor: bytes[0])
    }

    public var encoded: [UInt8] { [minor, major] }

    /// Version 0.1 marks an application with the legacy buttonless jump.
    public var isApplicationMode: Bool { major == 0 && minor == 1 }

    public var description: String { "\(major).\(minor)" }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.major, lhs.minor) < (rhs.major, rhs.minor) }
}
