/// An nRF Connect SDK update package, `dfu_application.zip`: its manifest and each image it
/// names, read as an ``MCUbootImage`` and checked against the manifest.
///
/// It is read from the archive's entries, name to bytes, which the caller takes out of the zip.
///
/// ```swift
/// let package = try DFUApplicationPackage(entries: entries, name: "dfu_application.zip")
/// for image in package.images {
///     print(image.core, image.imageIndex, image.image.header.version)
/// }
/// ```
public struct DFUApplicationPackage: Sendable {
    /// Which processor of a multi-core SoC an image is for.
    public enum Core: Hashable, Sendable {
        /// Image index 0.
        case application
        /// The board or SoC names the network core (`cpunet`, as the nRF5340's does).
        case network
        /// Any other image, e.g. the nRF70 Wi-Fi patches.
        case other
    }

    /// One image of the package.
    public struct Image: Sendable {
        public var core: Core
        /// MCUboot's image number: the `image` of the first upload chunk.
        public var imageIndex: Int
        /// The manifest's entry for it.
        public var manifestEntry: DFUApplicationManifest.File
        public var image: MCUbootImage
    }

    /// The package file, for messages.
    public let name: String
    public let manifest: DFUApplicationManifest
    /// The images in manifest order.
    public let images: [Image]

    /// Reads the package from its entries; `name` names the file in errors.
    public init(entries: [String: [UInt8]], name: String) throws(DFUApplicationPackageError) {
        guard let json = entries[DFUApplicationManifest.entryName] else {
            throw DFUApplicationPackageError(
                .manifestMissing, package: name, reason: "no manifest.json at the root of the archive")
        }
        let manifest = try DFUApplicationManifest(json: json, package: name)
        var images: [Image] = []
        var seen: Set<[Int?]> = []
        for file in manifest.files {
            func mismatch(_ reason: String) -> DFUApplicationPackageError {
                DFUApplicationPackageError(.manifestMismatch, package: name, entry: file.file, reason: reason)
            }
            guard let bytes = entries[file.file] else {
                throw DFUApplicationPackageError(
                    .imageMissing, package: name, entry: file.file,
                    reason: "manifest.json names it for image \(file.imageIndex), but the archive lacks it")
            }
            guard seen.insert([file.imageIndex, file.slot]).inserted else {
                throw mismatch("a second file for image \(file.imageIndex)")
            }
            if let size = file.size, size != bytes.count {
                throw mismatch("\(bytes.count) bytes, but manifest.json says \(size)")
            }
            let image: MCUbootImage
            do throws(MCUbootImageError) {
                image = try MCUbootImage(bytes: bytes, name: file.file)
            } catch {
                throw DFUApplicationPackageError(
                    .invalidImage, package: name, entry: file.file,
                    reason: "\(error.kind.rawValue): \(error.reason)")
            }
            if let text = file.mcubootVersion {
                guard let version = MCUbootVersion(text), version == image.header.version else {
                    throw mismatch(
                        "manifest.json says version \(text), the image header \(image.header.version)")
                }
            }
            images.append(
                Image(
                    core: Self.core(of: file), imageIndex: file.imageIndex, manifestEntry: file, image: image)
            )
        }
        self.name = name
        self.manifest = manifest
        self.images = images
    }

    private static func core(of file: DFUApplicationManifest.File) -> Core {
        if [file.board, file.soc].contains(where: { $0?.lowercased().contains("cpunet") == true }) {
            return .network
        }
        return file.imageIndex == 0 ? .application : .other
    }
}
