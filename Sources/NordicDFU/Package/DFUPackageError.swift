import DFUSupport

/// Why a DFU package (or bare firmware file) cannot be used. Every failure of the package reader is
/// one of these; its ``kind`` is one of the error classes of docs/cli-contract.md.
public struct DFUPackageError: PackageReadingError, Sendable, Equatable, CustomStringConvertible {
    /// The contract's error classes; the raw value is the class as the contract spells it.
    public enum Kind: String, Sendable, CaseIterable {
        /// Not a zip, or a damaged one (empty, truncated, bad headers, CRC-32 or length mismatch).
        case invalidZip = "invalid_zip"
        /// An entry name (or a name in the manifest) is absolute or has `..` components.
        case unsafeEntryPath = "unsafe_entry_path"
        /// Two entries share a name.
        case duplicateEntry = "duplicate_entry"
        /// An entry declares or inflates to more than ``DFUPackage/maximumEntrySize``.
        case entryTooLarge = "entry_too_large"
        /// A compression method other than stored or deflate, or an encrypted entry.
        case unsupportedCompression = "unsupported_compression"
        /// No `manifest.json` at the archive root.
        case manifestMissing = "manifest_missing"
        /// `manifest.json` is not JSON.
        case manifestInvalidJSON = "manifest_invalid_json"
        /// `manifest.json` has the wrong shape, or names no known image, or an impossible set.
        case manifestInvalid = "manifest_invalid"
        /// The manifest names a `.bin` or `.dat` the archive lacks.
        case imageMissing = "image_missing"
        /// A firmware image is 0 bytes long.
        case imageEmpty = "image_empty"
        /// An init packet cannot be decoded.
        case initPacketInvalid = "init_packet_invalid"
        /// An init packet's size, hash or CRC-16 does not match its firmware image.
        case initPacketMismatch = "init_packet_mismatch"
        /// A bare firmware `.hex` is not valid Intel HEX (bad record, checksum, overlap).
        case invalidHex = "invalid_hex"
        /// An init packet's hash is of a type Nordic's bootloaders cannot check (not `sha256`);
        /// see ``DFUPackage/checkBootloadersCanVerify()``.
        case unsupportedHashType = "unsupported_hash_type"
        /// The file does not exist or cannot be read.
        case fileNotFound = "file_not_found"
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// The package (or firmware) file, as the caller named it.
    public let file: String
    /// The zip entry concerned, if any (e.g. `manifest.json`, `app.dat`).
    public let entry: String?
    /// What is wrong, in one short clause without the file name.
    public let reason: String

    /// Creates an error; `reason` says what is wrong with `entry` of `file`.
    public init(_ kind: Kind, file: String, entry: String? = nil, reason: String) {
        self.kind = kind
        self.file = file
        self.entry = entry
        self.reason = reason
    }

    /// The contract's error class, e.g. `invalid_zip`.
    public var errorClass: String { kind.rawValue }

    /// One line for a person: the file, the entry, what is wrong and what to try.
    public var message: String {
        let place = entry.map { "\(file): entry '\($0)'" } ?? file
        return "\(place): \(reason); \(kind.advice)"
    }

    public var description: String { "\(errorClass): \(message)" }

    package var isMissingFile: Bool { kind == .fileNotFound }
}

extension DFUPackageError.Kind {
    /// What a person can do about a failure of this kind.
    fileprivate var advice: String {
        switch self {
        case .invalidZip, .duplicateEntry, .unsupportedCompression:
            return "download the package again, or re-create it with nrfutil pkg generate"
        case .unsafeEntryPath:
            return "this package was not made by nrfutil; re-create it with nrfutil pkg generate"
        case .entryTooLarge:
            return "no nRF5 image is that large; check that this is the right file"
        case .manifestMissing:
            return "give a package made by nrfutil pkg generate, or a bare .bin/.hex firmware file"
        case .manifestInvalidJSON, .manifestInvalid, .imageMissing, .imageEmpty:
            return "re-create the package with nrfutil pkg generate"
        case .initPacketInvalid, .initPacketMismatch:
            return "re-create the package so that each .dat is made from its .bin (nrfutil pkg generate)"
        case .unsupportedHashType:
            return "re-create the package with nrfutil pkg generate, which hashes with sha256"
        case .invalidHex:
            return "check the .hex file (export it again from the build), or give the .bin"
        case .fileNotFound:
            return "check the path and its permissions"
        }
    }
}
