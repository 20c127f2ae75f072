import Crypto
import SwiftProtobuf

/// A Secure DFU init packet: a protobuf `dfu.Packet` holding an INIT `Command` with its
/// `InitCommand`, signed or not (docs/nordic-dfu-protocol.md 5.2, 5.3).
///
/// Fields absent on the wire read as their proto2 defaults (0, `false`, `.application`), which is
/// what a bootloader sees; ``presentFields`` tells which were written.
public struct SecureInitPacket: Sendable, Equatable {
    /// `FwType`: what the image is. Raw values are the contract's names.
    public enum FirmwareType: String, Sendable, CaseIterable {
        case application
        case softdevice
        case bootloader
        case softdeviceBootloader = "softdevice_bootloader"
        case externalApplication = "external_application"
    }

    /// `HashType`. Raw values are the contract's names.
    public enum HashType: String, Sendable, CaseIterable {
        case none
        case crc
        case sha128
        case sha256
        case sha512
    }

    /// `ValidationType`: how the bootloader checks the image at each boot.
    public enum ValidationType: String, Sendable, CaseIterable {
        case noValidation = "NO_VALIDATION"
        case generatedCRC = "VALIDATE_GENERATED_CRC"
        case sha256 = "VALIDATE_SHA256"
        case ecdsaP256SHA256 = "VALIDATE_ECDSA_P256_SHA256"
    }

    /// `SignatureType`.
    public enum SignatureType: String, Sendable, CaseIterable {
        case ecdsaP256SHA256 = "ECDSA_P256_SHA256"
        case ed25519 = "ED25519"
    }

    /// One `BootValidation` entry; ECDSA ones carry a signature of the image in ``bytes``.
    public struct BootValidation: Sendable, Equatable {
        public var type: ValidationType
        public var bytes: [UInt8]
    }

    /// The signature of a signed packet and where it sits in the `.dat`.
    public struct Signature: Sendable, Equatable {
        public var type: SignatureType
        /// r then s, each 32 bytes little-endian (ECDSA P-256).
        public var bytes: [UInt8]
        /// Offset of ``bytes`` in the `.dat`.
        public var offset: Int
    }

    public let fwVersion: UInt32
    public let hwVersion: UInt32
    /// Accepted SoftDevice FWIDs, in stored order (a set to nrfutil: the order means nothing).
    public let sdReq: [UInt32]
    public let type: FirmwareType
    public let sdSize: UInt32
    public let blSize: UInt32
    public let appSize: UInt32
    public let hashType: HashType
    /// The image hash as stored: a SHA-256 digest byte-reversed (little-endian).
    public let hash: [UInt8]
    public let isDebug: Bool
    public let bootValidation: [BootValidation]
    /// InitCommand fields present on the wire, by proto name (e.g. `fw_version`), in field order.
    public let presentFields: [String]
    /// Where the serialized InitCommand, the bytes the signature covers, sits in the `.dat`.
    public let initCommandRange: Range<Int>
    /// The signature, or nil for an unsigned packet.
    public let signature: Signature?

    /// Decodes a `.dat`; requires an INIT command with an InitCommand that has a hash.
    init(decoding dat: [UInt8]) throws(InitPacketProblem) {
        let packet: Dfu_Packet
        do {
            packet = try Dfu_Packet(serializedBytes: dat)
        } catch {
            throw .invalid("not a protobuf dfu.Packet (\(error))")
        }
        guard packet.hasCommand != packet.hasSignedCommand else {
            throw .invalid(
                packet.hasCommand
                    ? "the packet holds both a command and a signed command" : "the packet holds no command")
        }
        let command = packet.hasSignedCommand ? packet.signedCommand.command : packet.command
        guard command.hasOpCode, command.opCode == .init_ else {
            throw .invalid("the command is not INIT")
        }
        guard command.hasInit_p else { throw .invalid("the INIT command has no InitCommand") }
        let init_ = command.init_p
        guard init_.hasHash else { throw .invalid("the InitCommand has no firmware hash") }
        // proto2 keeps an enum value it does not know among the unknown fields, and the field
        // then reads as its default: a `type` of 9 would pass for APPLICATION.
        if (try? ProtobufWire.fieldNumbers(in: Array(init_.unknownFields.data)))?.contains(4) ?? false {
            throw .invalid("the InitCommand's type is not a known firmware type")
        }
        let located = try Self.locate(in: dat, signed: packet.hasSignedCommand)

        fwVersion = init_.fwVersion
        hwVersion = init_.hwVersion
        sdReq = init_.sdReq
        type = FirmwareType(init_.type)
        sdSize = init_.sdSize
        blSize = init_.blSize
        appSize = init_.appSize
        hashType = HashType(init_.hash.hashType)
        hash = Array(init_.hash.hash)
        isDebug = init_.isDebug
        bootValidation = init_.bootValidation.map {
            BootValidation(type: ValidationType($0.type), bytes: Array($0.bytes))
        }
        presentFields = Self.presentFields(of: init_)
        initCommandRange = located.initCommand
        if let range = located.signature {
            signature = Signature(
                type: SignatureType(packet.signedCommand.signatureType), bytes: Array(dat[range]),
                offset: range.lowerBound)
        } else {
            signature = nil
        }
    }

    /// Finds the InitCommand and signature byte ranges by walking the wire format.
    private static func locate(
        in dat: [UInt8], signed: Bool
    ) throws(InitPacketProblem) -> (initCommand: Range<Int>, signature: Range<Int>?) {
        var signature: Range<Int>?
        var initCommand: Range<Int>?
        do throws(ProtobufWire.Malformed) {
            var command: Range<Int>?
            if signed {
                if let signedCommand = try ProtobufWire.payload(ofField: 2, in: dat, range: dat.indices) {
                    command = try ProtobufWire.payload(ofField: 1, in: dat, range: signedCommand)
                    signature = try ProtobufWire.payload(ofField: 3, in: dat, range: signedCommand)
                }
            } else {
                command = try ProtobufWire.payload(ofField: 1, in: dat, range: dat.indices)
            }
            if let command { initCommand = try ProtobufWire.payload(ofField: 2, in: dat, range: command) }
        } catch {
            throw .invalid("malformed protobuf: \(error.reason)")
        }
        guard let initCommand else { throw .invalid("the INIT command has no InitCommand") }
        return (initCommand, signature)
    }

    private static func presentFields(of command: Dfu_InitCommand) -> [String] {
        let fields: [(String, Bool)] = [
            ("fw_version", command.hasFwVersion), ("hw_version", command.hasHwVersion),
            ("sd_req", !command.sdReq.isEmpty), ("type", command.hasType), ("sd_size", command.hasSdSize),
            ("bl_size", command.hasBlSize), ("app_size", command.hasAppSize), ("hash", command.hasHash),
            ("is_debug", command.hasIsDebug), ("boot_validation", !command.bootValidation.isEmpty),
        ]
        return fields.filter(\.1).map(\.0)
    }

    /// The serialized InitCommand: the bytes the signature covers.
    func signedBytes(of dat: [UInt8]) -> ArraySlice<UInt8> { dat[initCommandRange] }

    /// Checks that this packet describes `firmware` as an image of `kind`: type, size and, for
    /// `sha256` and `sha512`, hash.
    func check(against firmware: [UInt8], kind: DFUImageKind, sha256: [UInt8]) throws(InitPacketProblem) {
        let size = UInt32(firmware.count)
        let (expectedTypes, declared, sizeName): ([FirmwareType], UInt32, String) =
            switch kind {
            case .application: ([.application, .externalApplication], appSize, "app_size")
            case .softdevice: ([.softdevice], sdSize, "sd_size")
            case .bootloader: ([.bootloader], blSize, "bl_size")
            case .softdeviceBootloader: ([.softdeviceBootloader], sdSize &+ blSize, "sd_size + bl_size")
            }
        guard expectedTypes.contains(type) else {
            throw .mismatch("the init packet is for a \(type.rawValue) image, not \(kind.rawValue)")
        }
        guard declared == size else {
            throw .mismatch("the init packet's \(sizeName) is \(declared), but the image is \(size) bytes")
        }
        let digest: [UInt8]
        switch hashType {
        case .sha256: digest = sha256
        case .sha512: digest = Array(SHA512.hash(data: firmware))
        case .none, .crc, .sha128:
            // The format gives these no byte layout and no Nordic tool writes them: they are
            // described as stored, not checked; `DFUPackage.checkBootloadersCanVerify()` refuses
            // them before an update.
            return
        }
        guard hash == Array(digest.reversed()) else {
            throw .mismatch("the init packet's \(hashType.rawValue) hash does not match the image")
        }
    }
}

extension SecureInitPacket.FirmwareType {
    fileprivate init(_ wire: Dfu_FwType) {
        switch wire {
        case .application: self = .application
        case .softdevice: self = .softdevice
        case .bootloader: self = .bootloader
        case .softdeviceBootloader: self = .softdeviceBootloader
        case .externalApplication: self = .externalApplication
        }
    }
}

extension SecureInitPacket.HashType {
    fileprivate init(_ wire: Dfu_HashType) {
        switch wire {
        case .noHash: self = .none
        case .crc: self = .crc
        case .sha128: self = .sha128
        case .sha256: self = .sha256
        case .sha512: self = .sha512
        }
    }
}

extension SecureInitPacket.ValidationType {
    fileprivate init(_ wire: Dfu_ValidationType) {
        switch wire {
        case .noValidation: self = .noValidation
        case .validateGeneratedCrc: self = .generatedCRC
        case .validateSha256: self = .sha256
        case .validateEcdsaP256Sha256: self = .ecdsaP256SHA256
        }
    }
}

extension SecureInitPacket.SignatureType {
    fileprivate init(_ wire: Dfu_SignatureType) {
        switch wire {
        case .ecdsaP256Sha256: self = .ecdsaP256SHA256
        case .ed25519: self = .ed25519
        }
    }
}
