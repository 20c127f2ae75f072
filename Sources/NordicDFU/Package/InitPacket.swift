/// A decoded init packet: the `.dat` that precedes each firmware image.
public enum InitPacket: Sendable, Equatable {
    /// A Secure DFU init packet (protobuf `dfu.Packet`).
    case secure(SecureInitPacket)
    /// A Legacy DFU init packet (packed little-endian struct).
    case legacy(LegacyInitPacket)
}

/// Why an init packet cannot be decoded, or does not fit its image; the package reader turns it
/// into a ``DFUPackageError`` naming the file and entry.
struct InitPacketProblem: Error {
    enum Kind {
        case invalid
        case mismatch
    }

    var kind: Kind
    var reason: String

    static func invalid(_ reason: String) -> Self { Self(kind: .invalid, reason: reason) }
    static func mismatch(_ reason: String) -> Self { Self(kind: .mismatch, reason: reason) }
}
