import DFUSupport

/// Why an nRF Connect SDK `dfu_application.zip` cannot be used.
public struct DFUApplicationPackageError: PackageReadingError, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// No `manifest.json` among the entries.
        case manifestMissing = "manifest_missing"
        /// `manifest.json` is not JSON, or not of the generator's shape.
        case manifestInvalid = "manifest_invalid"
        /// The manifest names a file the archive lacks.
        case imageMissing = "image_missing"
        /// An entry contradicts the manifest: its `size`, its `version_MCUBOOT`, or an image
        /// index (and slot) given twice.
        case manifestMismatch = "manifest_mismatch"
        /// An entry is not a usable MCUboot image (``MCUbootImageError`` says why).
        case invalidImage = "invalid_image"
    }

    public let kind: Kind
    /// The package file, as the caller named it.
    public let package: String
    /// The entry concerned, if any.
    public let entry: String?
    /// What is wrong, in one short clause without the file name.
    public let reason: String

    public init(_ kind: Kind, package: String, entry: String? = nil, reason: String) {
        self.kind = kind
        self.package = package
        self.entry = entry
        self.reason = reason
    }

    public var description: String { "\(kind.rawValue): \(place): \(reason)" }

    package var errorClass: String { kind.rawValue }
    package var message: String {
        "\(place): \(reason); check the package: make it again with the nRF Connect SDK build (west build)"
    }

    private var place: String { entry.map { "\(package): entry '\($0)'" } ?? package }
}
