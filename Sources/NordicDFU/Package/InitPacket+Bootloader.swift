/// Decoding and checking init packets the way a bootloader does: from the bytes it received,
/// without a package around them (used by the simulated device).

/// Why received init packet bytes are not an init packet.
public struct InitPacketDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
}

extension SecureInitPacket {
    /// Decodes received init command bytes (a protobuf `dfu.Packet`).
    public static func decode(_ dat: [UInt8]) throws(InitPacketDecodingError) -> SecureInitPacket {
        do {
            return try SecureInitPacket(decoding: dat)
        } catch {
            throw InitPacketDecodingError(description: error.reason)
        }
    }

    /// Whether the signature of `dat` (this packet's bytes) verifies against `key` over the
    /// InitCommand bytes; false when unsigned or of a type other than ECDSA P-256.
    public func signatureVerifies(in dat: [UInt8], with key: DFUPublicKey) -> Bool {
        guard let signature, signature.type == .ecdsaP256SHA256 else { return false }
        return key.verifies(signature.bytes, of: signedBytes(of: dat), littleEndian: true)
    }
}

extension LegacyInitPacket {
    /// Decodes received init packet bytes, picking the 0.5–0.8 layout from their length.
    public static func decode(_ dat: [UInt8]) throws(InitPacketDecodingError) -> LegacyInitPacket {
        do {
            return try LegacyInitPacket(inferringVersionOf: dat)
        } catch {
            throw InitPacketDecodingError(description: error.reason)
        }
    }
}
