import Crypto

/// The hash in an image's hash TLV (imgtool `--sha`): SHA-256 unless told otherwise, SHA-512 on
/// nRF54L and nRF54H (nRF Connect SDK's `BOOT_IMG_HASH_ALG_SHA512`, and always with a pure
/// Ed25519 signature), SHA-384 with ECDSA P-384 keys. A device lists, tests and confirms an
/// image by this hash, at its full length.
public enum MCUbootHashAlgorithm: String, CaseIterable, Hashable, Sendable {
    case sha256 = "SHA-256"
    case sha384 = "SHA-384"
    case sha512 = "SHA-512"

    /// The algorithm a hash TLV of `kind` holds; nil for any other TLV.
    public init?(tlvKind kind: MCUbootTLV.Kind) {
        guard let algorithm = Self.allCases.first(where: { $0.tlvKind == kind }) else { return nil }
        self = algorithm
    }

    /// The TLV that carries the hash: `IMAGE_TLV_SHA256` (0x10), `_SHA384` (0x11), `_SHA512` (0x12).
    public var tlvKind: MCUbootTLV.Kind {
        switch self {
        case .sha256: .sha256
        case .sha384: .sha384
        case .sha512: .sha512
        }
    }

    /// The hash's length in bytes.
    public var byteCount: Int {
        switch self {
        case .sha256: SHA256.byteCount
        case .sha384: SHA384.byteCount
        case .sha512: SHA512.byteCount
        }
    }

    /// The hash of `bytes`.
    public func hash(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        switch self {
        case .sha256: Array(SHA256.hash(data: bytes))
        case .sha384: Array(SHA384.hash(data: bytes))
        case .sha512: Array(SHA512.hash(data: bytes))
        }
    }

    /// The algorithm whose hashes are `count` bytes long; nil for any other length.
    public init?(byteCount count: Int) {
        guard let algorithm = Self.allCases.first(where: { $0.byteCount == count }) else { return nil }
        self = algorithm
    }
}
