import DFUSupport

/// One entry of an MCUboot image's TLV areas: `{type u16, length u16}` and the value, little-endian.
public struct MCUbootTLV: Hashable, Sendable {
    /// TLV types, `IMAGE_TLV_*` (MCUboot `image.h`, imgtool `image.py` `TLV_VALUES`). Types
    /// 0x00a0 to 0xfffe are left to vendors.
    public struct Kind: RawRepresentable, Hashable, Sendable {
        public var rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// SHA-256 of the public key's SubjectPublicKeyInfo (imgtool's default).
        public static let keyHash = Kind(rawValue: 0x01)
        /// The whole public key (imgtool `--public-key-format full`).
        public static let publicKey = Kind(rawValue: 0x02)
        /// SHA-256 of header, body and protected TLVs: the image hash a device reports.
        public static let sha256 = Kind(rawValue: 0x10)
        /// SHA-384 of the same (with ECDSA P-384 keys).
        public static let sha384 = Kind(rawValue: 0x11)
        /// SHA-512 of the same (nRF54L and nRF54H by default).
        public static let sha512 = Kind(rawValue: 0x12)
        public static let rsa2048PSS = Kind(rawValue: 0x20)
        /// ECDSA P-224, no longer supported by MCUboot.
        public static let ecdsaP224 = Kind(rawValue: 0x21)
        /// ECDSA (P-256, or P-384 with SHA-384), DER; `IMAGE_TLV_ECDSA_SIG`, once `ECDSA256`.
        public static let ecdsaSignature = Kind(rawValue: 0x22)
        public static let rsa3072PSS = Kind(rawValue: 0x23)
        public static let ed25519 = Kind(rawValue: 0x24)
        /// `0x01`: the signature is over the image itself, not its hash ("pure" Ed25519).
        public static let signaturePure = Kind(rawValue: 0x25)
        public static let encryptionRSA2048 = Kind(rawValue: 0x30)
        public static let encryptionKeyWrap = Kind(rawValue: 0x31)
        public static let encryptionEC256 = Kind(rawValue: 0x32)
        public static let encryptionX25519 = Kind(rawValue: 0x33)
        public static let encryptionX25519SHA512 = Kind(rawValue: 0x34)
        /// Another image this one needs, at a minimum version (protected).
        public static let dependency = Kind(rawValue: 0x40)
        /// The security counter for rollback protection (protected).
        public static let securityCounter = Kind(rawValue: 0x50)
        public static let bootRecord = Kind(rawValue: 0x60)
        public static let decompressedSize = Kind(rawValue: 0x70)
        public static let decompressedSHA = Kind(rawValue: 0x71)
        public static let decompressedSignature = Kind(rawValue: 0x72)
    }

    public var kind: Kind
    public var value: [UInt8]

    /// `IMAGE_TLV_PROT_INFO_MAGIC`: the info header of the protected area, which the hash covers.
    static let protectedAreaMagic: UInt16 = 0x6908
    /// `IMAGE_TLV_INFO_MAGIC`: the info header of the unprotected area.
    static let areaMagic: UInt16 = 0x6907

    /// Reads the TLV area starting at `offset`: an info header `{magic, total length}` (total
    /// including the header) and entries filling exactly the rest. Returns the entries and the
    /// offset after the area.
    static func area(
        in bytes: [UInt8], at offset: Int, magic: UInt16, file: String
    ) throws(MCUbootImageError) -> (entries: [MCUbootTLV], end: Int) {
        let name = magic == protectedAreaMagic ? "protected TLV area" : "TLV area"
        func invalid(_ reason: String) -> MCUbootImageError {
            MCUbootImageError(.tlvAreaInvalid, file: file, reason: "\(name) at offset \(offset): \(reason)")
        }
        guard offset + 4 <= bytes.count else {
            throw invalid("the file ends before its 4-byte info header")
        }
        let found: UInt16 = bytes.littleEndian(at: offset)
        guard found == magic else {
            throw invalid("info magic 0x\(String(found, radix: 16)), not 0x\(String(magic, radix: 16))")
        }
        let total = Int(bytes.littleEndian(at: offset + 2, as: UInt16.self))
        guard total >= 4 else { throw invalid("its length \(total) is shorter than its info header") }
        let end = offset + total
        guard end <= bytes.count else {
            throw invalid("its \(total) bytes reach past the end of the file (\(bytes.count) bytes)")
        }
        var entries: [MCUbootTLV] = []
        var position = offset + 4
        while position < end {
            guard position + 4 <= end else { throw invalid("an entry header crosses the end of the area") }
            let length = Int(bytes.littleEndian(at: position + 2, as: UInt16.self))
            guard position + 4 + length <= end else {
                throw invalid("an entry of \(length) bytes at offset \(position) crosses the end of the area")
            }
            entries.append(
                MCUbootTLV(
                    kind: Kind(rawValue: bytes.littleEndian(at: position)),
                    value: Array(bytes[position + 4..<position + 4 + length])))
            position += 4 + length
        }
        return (entries, end)
    }
}

extension MCUbootTLV.Kind: CustomStringConvertible {
    /// The signature kinds by the names imgtool's `--key` types use; others as their number.
    public var description: String {
        switch self {
        case .ecdsaSignature: "ECDSA"
        case .ed25519: "Ed25519"
        case .rsa2048PSS: "RSA-2048"
        case .rsa3072PSS: "RSA-3072"
        case .ecdsaP224: "ECDSA P-224"
        case .sha256: "SHA-256"
        case .sha384: "SHA-384"
        case .sha512: "SHA-512"
        default: "TLV 0x" + String(rawValue, radix: 16)
        }
    }
}
