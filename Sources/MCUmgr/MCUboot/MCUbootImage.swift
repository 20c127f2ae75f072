import Crypto
import DFUSupport

/// A signed MCUboot image as imgtool writes it, read and checked: the file an SMP client uploads.
///
/// Layout (MCUboot `image.h`, imgtool `image.py`): the header, padded to `headerSize`; the body of
/// `imageSize` bytes; the protected TLV area (`0x6908`, `protectedTLVSize` bytes, when there is
/// one); the TLV area (`0x6907`); with `imgtool --pad`, erased bytes up to the slot's end and
/// the trailer. The hash TLV (SHA-256, SHA-384 or SHA-512, ``MCUbootHashAlgorithm``) is the hash
/// of everything before the unprotected area; it is checked here (unless the body is encrypted,
/// when it is of the plain body), and it is the hash a device reports for the image and takes in a
/// state write.
///
/// ```swift
/// let image = try MCUbootImage(bytes: fileBytes, name: "app.signed.bin", slotSize: 0x67000)
/// print(image.header.version, image.hash.count)  // 1.2.3+0 32
/// ```
public struct MCUbootImage: Sendable {
    /// The file name, for messages.
    public let name: String
    /// The file's bytes: what is uploaded.
    public let bytes: [UInt8]
    public let header: MCUbootHeader
    /// The protected TLVs (covered by the hash), in file order.
    public let protectedTLVs: [MCUbootTLV]
    /// The unprotected TLVs, in file order.
    public let unprotectedTLVs: [MCUbootTLV]
    /// The hash TLV's value: the image hash.
    public let hash: [UInt8]
    /// The algorithm of ``hash``: its TLV's type.
    public let hashAlgorithm: MCUbootHashAlgorithm
    /// Bytes from the start to the end of the protected TLV area: what the hash covers, and what
    /// a pure signature signs.
    public let hashedEnd: Int
    /// Whether ``hash`` was recomputed and found equal; false only for an encrypted body.
    public let isHashVerified: Bool
    /// Bytes from the start to the end of the TLV area: the image without padding or trailer.
    public let imageEnd: Int
    /// The trailer imgtool `--pad` writes at the end of the file; nil without one.
    public let trailer: MCUbootTrailer?

    /// Reads and checks `bytes`; `name` names the file in errors. With `slotSize`, a file larger
    /// than the slot is refused, as a device refuses its `len`.
    public init(bytes: [UInt8], name: String, slotSize: Int? = nil) throws(MCUbootImageError) {
        let header = try MCUbootHeader(bytes: bytes, file: name)
        let bodyEnd = Int(header.headerSize) + Int(header.imageSize)
        guard bodyEnd <= bytes.count else {
            throw MCUbootImageError(
                .truncated, file: name,
                reason:
                    "the header announces \(bodyEnd) bytes of header and body, but the file holds \(bytes.count)"
            )
        }
        var protectedTLVs: [MCUbootTLV] = []
        var hashedEnd = bodyEnd
        if header.protectedTLVSize > 0 {
            let area = try MCUbootTLV.area(
                in: bytes, at: bodyEnd, magic: MCUbootTLV.protectedAreaMagic, file: name)
            guard area.end - bodyEnd == Int(header.protectedTLVSize) else {
                throw MCUbootImageError(
                    .tlvAreaInvalid, file: name,
                    reason:
                        "the protected TLV area holds \(area.end - bodyEnd) bytes, the header says \(header.protectedTLVSize)"
                )
            }
            protectedTLVs = area.entries
            hashedEnd = area.end
        }
        let area = try MCUbootTLV.area(in: bytes, at: hashedEnd, magic: MCUbootTLV.areaMagic, file: name)
        let hashes = area.entries.compactMap { entry in
            MCUbootHashAlgorithm(tlvKind: entry.kind).map { (algorithm: $0, value: entry.value) }
        }
        guard hashes.count == 1, let (algorithm, hash) = hashes.first, hash.count == algorithm.byteCount
        else {
            throw MCUbootImageError(
                .hashMissing, file: name,
                reason: hashes.isEmpty
                    ? "no hash TLV (SHA-256 0x10, SHA-384 0x11 or SHA-512 0x12), which devices need to list the image"
                    : "\(hashes.count) hash TLVs, or one whose length is not its algorithm's")
        }
        if !header.isEncrypted {
            let computed = algorithm.hash(bytes[..<hashedEnd])
            guard computed == hash else {
                throw MCUbootImageError(
                    .hashMismatch, file: name,
                    reason:
                        "the \(algorithm.rawValue) of header, body and protected TLVs is \(computed.hexString()), the TLV says \(hash.hexString())"
                )
            }
        }
        if let slotSize, bytes.count > slotSize {
            throw MCUbootImageError(
                .tooLargeForSlot, file: name,
                reason: "\(bytes.count) bytes, more than the \(slotSize)-byte slot")
        }
        self.name = name
        self.bytes = bytes
        self.header = header
        self.protectedTLVs = protectedTLVs
        unprotectedTLVs = area.entries
        self.hash = hash
        hashAlgorithm = algorithm
        self.hashedEnd = hashedEnd
        isHashVerified = !header.isEncrypted
        imageEnd = area.end
        trailer = MCUbootTrailer(in: bytes, after: area.end)
    }

    /// The SHA-256 of the whole file, which an upload's `sha` carries.
    public var fileSHA256: [UInt8] { Array(SHA256.hash(data: bytes)) }

    /// The security counter TLV's value, when the image has one.
    public var securityCounter: UInt32? {
        guard let tlv = protectedTLVs.first(where: { $0.kind == .securityCounter }), tlv.value.count == 4
        else { return nil }
        return tlv.value.littleEndian(at: 0)
    }
}
