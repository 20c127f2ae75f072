import DFUSupport

/// The 32-byte header that starts an MCUboot image, little-endian (MCUboot `image.h`,
/// `struct image_header`; imgtool `image.py`, `add_header`).
public struct MCUbootHeader: Hashable, Sendable {
    /// `IMAGE_MAGIC`.
    public static let magic: UInt32 = 0x96F3_B83D
    /// `IMAGE_MAGIC_V1`, an obsolete layout.
    static let obsoleteMagic: UInt32 = 0x96F3_B83C
    /// Bytes in the header structure; `headerSize` may reserve more (imgtool `--header-size`).
    public static let size = 32

    /// Image header flags, `IMAGE_F_*`.
    public struct Flags: OptionSet, Hashable, Sendable {
        public var rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let positionIndependent = Flags(rawValue: 0x01)
        public static let encryptedAES128 = Flags(rawValue: 0x04)
        public static let encryptedAES256 = Flags(rawValue: 0x08)
        public static let nonBootable = Flags(rawValue: 0x10)
        /// Loaded into RAM at `loadAddress` before it runs.
        public static let ramLoad = Flags(rawValue: 0x20)
        /// `loadAddress` is the flash address the image was built for.
        public static let romFixed = Flags(rawValue: 0x100)
        public static let compressedLZMA1 = Flags(rawValue: 0x200)
        public static let compressedLZMA2 = Flags(rawValue: 0x400)
        public static let compressedARMThumb = Flags(rawValue: 0x800)
    }

    public var loadAddress: UInt32
    /// Bytes from the start of the image to its body: the header and its padding.
    public var headerSize: UInt16
    /// Bytes of the protected TLV area, its 4-byte info header included; 0 when there is none.
    public var protectedTLVSize: UInt16
    /// Bytes of the body, after the header.
    public var imageSize: UInt32
    public var flags: Flags
    public var version: MCUbootVersion

    /// Reads the header at the start of `bytes`; `file` names them in errors.
    public init(bytes: [UInt8], file: String) throws(MCUbootImageError) {
        guard bytes.count >= Self.size else {
            throw MCUbootImageError(
                .truncated, file: file,
                reason: "\(bytes.count) bytes, shorter than the \(Self.size)-byte MCUboot header")
        }
        let magic: UInt32 = bytes.littleEndian(at: 0)
        guard magic == Self.magic else {
            let hex = String(magic, radix: 16)
            throw MCUbootImageError(
                .badMagic, file: file,
                reason: magic == Self.obsoleteMagic
                    ? "magic 0x\(hex) is MCUboot's obsolete version 1 layout"
                    : "magic 0x\(hex), not MCUboot's 0x96f3b83d (not a signed MCUboot image)")
        }
        loadAddress = bytes.littleEndian(at: 4)
        headerSize = bytes.littleEndian(at: 8)
        protectedTLVSize = bytes.littleEndian(at: 10)
        imageSize = bytes.littleEndian(at: 12)
        flags = Flags(rawValue: bytes.littleEndian(at: 16))
        version = MCUbootVersion(
            major: bytes[20], minor: bytes[21], revision: bytes.littleEndian(at: 22),
            build: bytes.littleEndian(at: 24))
        guard Int(headerSize) >= Self.size else {
            throw MCUbootImageError(
                .invalidHeader, file: file,
                reason: "header size \(headerSize) is smaller than the \(Self.size)-byte header")
        }
    }

    /// Whether the body is encrypted, so that its hash (taken of the plain body) cannot be
    /// checked here.
    public var isEncrypted: Bool { !flags.isDisjoint(with: [.encryptedAES128, .encryptedAES256]) }
}
