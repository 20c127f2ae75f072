extension DFUImage {
    /// Whether the init packet's signature verifies against `key`; nil when unsigned.
    ///
    /// Secure: ECDSA P-256 / SHA-256 over the InitCommand bytes as stored, r‖s little-endian.
    /// Legacy 0.8: over all bytes before the signature, r‖s big-endian.
    public func verifySignature(with key: DFUPublicKey) -> Bool? {
        guard let dat = initPacket else { return nil }
        switch decodedInitPacket {
        case .secure(let packet):
            guard let signature = packet.signature else { return nil }
            guard signature.type == .ecdsaP256SHA256 else { return false }
            return key.verifies(signature.bytes, of: packet.signedBytes(of: dat), littleEndian: true)
        case .legacy(let packet):
            guard let signature = packet.signature else { return nil }
            return key.verifies(signature, of: packet.signedBytes(of: dat), littleEndian: false)
        case nil:
            return nil
        }
    }

    /// For each Secure `boot_validation` entry: whether its ECDSA signature of the firmware (of the
    /// SoftDevice part for a SoftDevice + bootloader image) verifies against `key`; nil for
    /// entries of other types. Empty for Legacy packets.
    public func verifyBootValidation(with key: DFUPublicKey) -> [Bool?] {
        guard case .secure(let packet) = decodedInitPacket else { return [] }
        let signed =
            kind == .softdeviceBootloader
            ? firmware[..<Int(min(sdSize ?? 0, UInt32(firmware.count)))] : firmware[...]
        return packet.bootValidation.map { validation in
            guard validation.type == .ecdsaP256SHA256 else { return nil }
            return key.verifies(validation.bytes, of: signed, littleEndian: true)
        }
    }
}
