import Crypto
import MCUmgr

/// Builds an MCUboot image byte by byte, laid out as imgtool lays it out: header (padded to
/// `headerSize`), body, protected TLV area, TLV area (SHA-256, key TLV, signature), and with
/// `padTo` erased bytes and the trailer.
public struct TestImage {
    public init() {}

    public enum Signer {
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)

        public var publicKey: MCUbootPublicKey {
            switch self {
            case .p256(let key): .p256(key.publicKey)
            case .ed25519(let key): .ed25519(key.publicKey)
            }
        }
    }

    public enum KeyTLV {
        case none
        case hash
        case full
    }

    public var body: [UInt8] = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    public var headerSize: UInt16 = 32
    public var loadAddress: UInt32 = 0
    public var flags: UInt32 = 0
    public var version = MCUbootVersion(major: 1, minor: 2, revision: 3, build: 4)
    public var protectedTLVs: [(UInt16, [UInt8])] = []
    public var signer: Signer?
    public var keyTLV = KeyTLV.hash
    /// Zeros appended to an ECDSA signature, as imgtool `--pad-sig` does, up to 72 bytes.
    public var padSignature = false
    /// Replaces the SHA-256 TLV's value (e.g. for an encrypted body, whose hash is of the plain one).
    public var hashOverride: [UInt8]?
    /// `imgtool --pad --slot-size`: the file is this long, ending with the trailer.
    public var padTo: Int?
    public var confirm = false

    static let trailerMagic: [UInt8] = [
        0x77, 0xC2, 0x95, 0xF3, 0x60, 0xD2, 0xEF, 0x7F, 0x35, 0x52, 0x50, 0x0F, 0x2C, 0xB6, 0x79, 0x80,
    ]

    /// The hashed part: header, header padding, body and protected TLV area.
    public var hashedBytes: [UInt8] {
        let protectedArea = Self.area(magic: 0x6908, protectedTLVs)
        var bytes: [UInt8] = []
        bytes.le32(0x96F3_B83D)
        bytes.le32(loadAddress)
        bytes.le16(headerSize)
        bytes.le16(UInt16(protectedArea.count))
        bytes.le32(UInt32(body.count))
        bytes.le32(flags)
        bytes += [version.major, version.minor]
        bytes.le16(version.revision)
        bytes.le32(version.build)
        bytes.le32(0)
        bytes += [UInt8](repeating: 0, count: Int(headerSize) - 32)
        return bytes + body + protectedArea
    }

    public var hash: [UInt8] { Array(SHA256.hash(data: hashedBytes)) }

    public var bytes: [UInt8] {
        let hashed = hashedBytes
        let digest = SHA256.hash(data: hashed)
        var tlvs: [(UInt16, [UInt8])] = [(0x10, hashOverride ?? Array(digest))]
        if let signer {
            switch keyTLV {
            case .none: break
            case .hash: tlvs.append((0x01, signer.publicKey.keyHash))
            case .full: tlvs.append((0x02, signer.publicKey.subjectPublicKeyInfo))
            }
            switch signer {
            case .p256(let key):
                var signature = Array(try! key.signature(for: digest).derRepresentation)
                if padSignature { signature += [UInt8](repeating: 0, count: 72 - signature.count) }
                tlvs.append((0x22, signature))
            case .ed25519(let key):
                tlvs.append((0x24, Array(try! key.signature(for: Array(digest)))))
            }
        }
        var file = hashed + Self.area(magic: 0x6907, tlvs)
        if let padTo {
            var trailer = [UInt8](repeating: 0xFF, count: padTo - file.count - 16) + Self.trailerMagic
            if confirm { trailer[trailer.count - 24] = 0x01 }
            file += trailer
        }
        return file
    }

    /// A TLV area with its info header; empty for a protected area without entries.
    public static func area(magic: UInt16, _ entries: [(UInt16, [UInt8])]) -> [UInt8] {
        if magic == 0x6908 && entries.isEmpty { return [] }
        var body: [UInt8] = []
        for (kind, value) in entries {
            body.le16(kind)
            body.le16(UInt16(value.count))
            body += value
        }
        var area: [UInt8] = []
        area.le16(magic)
        area.le16(UInt16(4 + body.count))
        return area + body
    }
}
