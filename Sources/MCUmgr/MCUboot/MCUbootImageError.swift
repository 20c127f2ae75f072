import DFUSupport

/// Why a file is not a usable MCUboot image; every failure of ``MCUbootImage`` is one of these.
public struct MCUbootImageError: PackageReadingError, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Shorter than its header, or than the header and body the header announces.
        case truncated
        /// Not MCUboot's magic: not a signed image (an unsigned `.bin`, or another format).
        case badMagic = "bad_magic"
        /// The header contradicts itself (a header size below 32 bytes).
        case invalidHeader = "invalid_header"
        /// A TLV area is missing, has the wrong magic, or reaches out of the file or its area.
        case tlvAreaInvalid = "tlv_area_invalid"
        /// No hash TLV (SHA-256, SHA-384, SHA-512), more than one, or one of the wrong length.
        case hashMissing = "hash_missing"
        /// The hash TLV is not the hash of the image: the file is damaged or was altered.
        case hashMismatch = "hash_mismatch"
        /// The file is larger than the slot it is meant for.
        case tooLargeForSlot = "too_large_for_slot"
    }

    public let kind: Kind
    /// The image file, as the caller named it.
    public let file: String
    /// What is wrong, in one short clause without the file name.
    public let reason: String

    public init(_ kind: Kind, file: String, reason: String) {
        self.kind = kind
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(kind.rawValue): \(file): \(reason)" }

    package var errorClass: String { kind.rawValue }
    package var message: String { "\(file): \(reason); \(kind.advice)" }
}

extension MCUbootImageError.Kind {
    /// What a person can do about an image refused for this reason.
    fileprivate var advice: String {
        switch self {
        case .badMagic:
            "give a signed MCUboot image (e.g. zephyr.signed.bin or app_update.bin), not the raw build"
        case .tooLargeForSlot: "build a smaller image, or check --slot-size against the device's partitions"
        case .hashMismatch, .truncated: "the file is damaged: copy or build it again"
        case .invalidHeader, .tlvAreaInvalid, .hashMissing:
            "sign the image again with imgtool or the SDK's build"
        }
    }
}
