import Foundation
import MCUmgr

/// A firmware file of either protocol family, told apart by its content: a Nordic DFU package
/// (an nrfutil `.zip`, or a bare `.bin`/`.hex`) or what MCUboot devices take over SMP (an nRF
/// Connect SDK `dfu_application.zip`, or one MCUboot image file).
public enum FirmwarePackage: Sendable {
    case nordic(DFUPackage)
    case mcuboot(MCUbootPackage)

    /// Reads `url`. An MCUboot image larger than `slotSize`, when given, is refused. Throws
    /// `DFUPackageError`, `MCUbootImageError` or `DFUApplicationPackageError`.
    public init(contentsOf url: URL, slotSize: Int? = nil) throws {
        let name = url.relativePath
        let data = try DFUPackage.readFile(url, name: name)
        if data.starts(with: Self.mcubootMagic) {
            let image = try MCUbootImage(bytes: [UInt8](data), name: name, slotSize: slotSize)
            self = .mcuboot(MCUbootPackage(image: image))
        } else if data.starts(with: [0x50, 0x4B]), let entries = try Self.nrfConnectEntries(data, name: name)
        {
            let package = try DFUApplicationPackage(entries: entries, name: name)
            if let slotSize {
                for image in package.images {
                    _ = try MCUbootImage(bytes: image.image.bytes, name: image.image.name, slotSize: slotSize)
                }
            }
            self = .mcuboot(MCUbootPackage(package))
        } else {
            self = .nordic(try DFUPackage(contentsOf: url))
        }
    }

    /// MCUboot's header magic, as the file starts with it (little-endian).
    private static let mcubootMagic: [UInt8] = [0x3D, 0xB8, 0xF3, 0x96]

    /// The entries of a zip whose manifest is an nRF Connect SDK one (a `files` list rather than
    /// nrfutil's `manifest` object); nil for any other zip, left to the Nordic reader.
    private static func nrfConnectEntries(_ data: Data, name: String) throws -> [String: [UInt8]]? {
        try data.withUnsafeBytes { bytes throws -> [String: [UInt8]]? in
            let archive = try ZipArchive(bytes: bytes, fileName: name)
            guard let manifest = try archive.contents(of: DFUApplicationManifest.entryName),
                let object = try? JSONSerialization.jsonObject(with: Data(manifest)) as? [String: Any],
                object["files"] != nil, object["manifest"] == nil
            else { return nil }
            var entries: [String: [UInt8]] = [:]
            for entry in archive.entries.keys {
                entries[entry] = try archive.contents(of: entry)
            }
            return entries
        }
    }
}
