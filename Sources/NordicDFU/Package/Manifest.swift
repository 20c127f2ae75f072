import Foundation

/// What `manifest.json` says: the images, in send order, and the legacy `dfu_version`.
///
/// `{"manifest": {"<kind>": {"bin_file": …, "dat_file": …, …}, …, "dfu_version": 0.5}}`; the
/// presence of `dfu_version` marks a Legacy package (docs/nordic-dfu-protocol.md 5.1).
struct Manifest {
    struct Image {
        var kind: DFUImageKind
        var binFile: String
        var datFile: String?
        /// SoftDevice + bootloader only: from `info_read_only_metadata` (Secure) or the image
        /// object itself (Legacy).
        var sdSize: UInt32?
        var blSize: UInt32?
    }

    static let entryName = "manifest.json"

    var legacyVersion: LegacyInitPacket.Version?
    var images: [Image]

    init(json: [UInt8], fileName: String) throws(DFUPackageError) {
        func invalid(_ reason: String) -> DFUPackageError {
            DFUPackageError(.manifestInvalid, file: fileName, entry: Self.entryName, reason: reason)
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(json), options: [.fragmentsAllowed])
        } catch {
            throw DFUPackageError(
                .manifestInvalidJSON, file: fileName, entry: Self.entryName, reason: "not valid JSON")
        }
        guard let top = root as? [String: Any], let manifest = top["manifest"] as? [String: Any] else {
            throw invalid("expected an object with a \"manifest\" object inside")
        }
        if let version = manifest["dfu_version"] {
            guard let number = version as? Double, let legacy = LegacyInitPacket.Version(dfuVersion: number)
            else {
                throw invalid("dfu_version is \(version), not one of 0.5, 0.6, 0.7, 0.8")
            }
            legacyVersion = legacy
        }
        var images: [Image] = []
        for (key, value) in manifest where key != "dfu_version" {
            guard let kind = DFUImageKind(rawValue: key) else {
                // Other keys are tolerated, but not an image this reader would silently skip.
                if let object = value as? [String: Any], object["bin_file"] != nil {
                    throw invalid("image kind \"\(key)\" is not supported")
                }
                continue
            }
            guard let object = value as? [String: Any] else { throw invalid("\"\(key)\" is not an object") }
            images.append(
                try Self.image(
                    kind, object, legacy: legacyVersion != nil, invalid: invalid, fileName: fileName))
        }
        images.sort { $0.kind < $1.kind }
        guard !images.isEmpty else {
            throw invalid("names no image (application, bootloader, softdevice or softdevice_bootloader)")
        }
        let systemImages = images.filter(\.kind.isSystemImage).map(\.kind.rawValue)
        guard systemImages.count <= 1 else {
            throw invalid(
                "holds \(systemImages.joined(separator: " and ")); a package has at most one system image")
        }
        self.images = images
    }

    private static func image(
        _ kind: DFUImageKind, _ object: [String: Any], legacy: Bool,
        invalid: (String) -> DFUPackageError, fileName: String
    ) throws(DFUPackageError) -> Image {
        func name(_ key: String) throws(DFUPackageError) -> String? {
            guard let value = object[key] else { return nil }
            guard let name = value as? String, !name.isEmpty else {
                throw invalid("\(kind.rawValue).\(key) is not a file name")
            }
            guard EntryPath.isSafe(name) else {
                throw DFUPackageError(
                    .unsafeEntryPath, file: fileName, entry: entryName,
                    reason: "\(kind.rawValue).\(key) \"\(name)\" is absolute or climbs out of the archive")
            }
            return name
        }
        guard let binFile = try name("bin_file") else { throw invalid("\(kind.rawValue) has no bin_file") }
        let datFile = try name("dat_file")
        if datFile == nil && !legacy {
            throw invalid("\(kind.rawValue) has no dat_file (Secure DFU needs an init packet)")
        }
        var image = Image(kind: kind, binFile: binFile, datFile: datFile)
        if kind == .softdeviceBootloader {
            let sizes = (object["info_read_only_metadata"] as? [String: Any]) ?? object
            image.sdSize = try size(sizes["sd_size"], "sd_size", invalid)
            image.blSize = try size(sizes["bl_size"], "bl_size", invalid)
            if legacy && (image.sdSize == nil || image.blSize == nil) {
                throw invalid("softdevice_bootloader needs sd_size and bl_size (Legacy DFU sends them)")
            }
        }
        return image
    }

    private static func size(
        _ value: Any?, _ key: String, _ invalid: (String) -> DFUPackageError
    ) throws(DFUPackageError) -> UInt32? {
        guard let value else { return nil }
        guard let number = value as? NSNumber, let size = UInt32(exactly: number.doubleValue) else {
            throw invalid("softdevice_bootloader \(key) is not a size in bytes")
        }
        return size
    }
}
