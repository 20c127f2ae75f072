extension SecureInitPacket.HashType {
    /// Whether Nordic's Secure bootloaders can check an image against a hash of this type.
    ///
    /// Only `sha256`: nRF5 SDK 15–17 `nrf_dfu_validation.c` never reads the hash type; it
    /// computes SHA-256 over the received image and compares it with the first 32 bytes of the
    /// init packet's hash, so any other hash fails after the whole image was sent.
    public var isCheckedByBootloaders: Bool { self == .sha256 }
}

extension DFUPackage {
    /// Throws `unsupported_hash_type` for the first Secure init packet whose hash Nordic's
    /// bootloaders cannot check (see ``SecureInitPacket/HashType/isCheckedByBootloaders``), so
    /// that such a package is refused before connecting rather than after sending it.
    public func checkBootloadersCanVerify() throws(DFUPackageError) {
        for image in images {
            guard case .secure(let packet) = image.decodedInitPacket, !packet.hashType.isCheckedByBootloaders
            else { continue }
            throw DFUPackageError(
                .unsupportedHashType, file: name, entry: image.datName,
                reason:
                    "the init packet's hash type is \(packet.hashType.rawValue), but Nordic's bootloaders "
                    + "check only sha256 (they would refuse the image after it was sent)")
        }
    }
}
