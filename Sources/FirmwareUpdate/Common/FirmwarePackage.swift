import Foundation
import MCUmgr
import NordicDFU

/// A firmware file of either protocol family, told apart by its content: a Nordic DFU package
/// (an nrfutil `.zip`, or a bare `.bin`/`.hex`) or what MCUboot devices take over SMP (an nRF
/// Connect SDK `dfu_application.zip`, or one MCUboot image file).
public enum FirmwarePackage: Sendable {
    case nordic(DFUPackage)
    case mcuboot(MCUbootPackage)

    /// The package as every family's offers itself to updates: the one place that tells the
    /// families apart after reading.
    public var contents: any UpdatablePackage {
        switch self {
        case .nordic(let package): package
        case .mcuboot(let package): package
        }
    }

    /// Reads `url`. An MCUboot image larger than `slotSize`, when given, is refused. Throws
    /// `DFUPackageError`, `MCUbootImageError` or `DFUApplicationPackageError`.
    public init(contentsOf url: URL, slotSize: Int? = nil) throws {
        let name = url.relativePath
        try self.init(
            data: try DFUPackage.readFile(url, name: name), name: name,
            initPacketFile: url.deletingPathExtension().appendingPathExtension("dat"), slotSize: slotSize)
    }

    /// Reads a package from its bytes, a file known by `name` (whose extension tells a bare nRF5
    /// `.bin` / `.hex` apart): what a rollout store keeps, read without a file. A bare nRF5 image
    /// so read has no init packet.
    public init(bytes data: Data, name: String, slotSize: Int? = nil) throws {
        try self.init(data: data, name: name, initPacketFile: nil, slotSize: slotSize)
    }

    private init(data: Data, name: String, initPacketFile: URL?, slotSize: Int?) throws {
        let isZip = data.starts(with: [0x50, 0x4B])
        let fileExtension = URL(fileURLWithPath: name).pathExtension.lowercased()
        if let bytes = data.starts(with: Self.mcubootMagic) ? [UInt8](data) : Self.mcubootImage(inHex: data) {
            let image = try MCUbootImage(bytes: bytes, name: name, slotSize: slotSize)
            self = .mcuboot(MCUbootPackage(image: image))
        } else if !isZip, !["bin", "hex", "ihex", "zip"].contains(fileExtension) {
            throw DFUPackageError(
                .invalidZip, file: name,
                reason: "neither a zip (nrfutil's, or nRF Connect SDK's dfu_application.zip), an MCUboot "
                    + "image (.bin or .hex) nor an nRF5 firmware file (.bin or .hex)")
        } else if isZip, let entries = try Self.nrfConnectEntries(data, name: name) {
            let package = try DFUApplicationPackage(entries: entries, name: name)
            if let slotSize {
                for image in package.images {
                    _ = try MCUbootImage(bytes: image.image.bytes, name: image.image.name, slotSize: slotSize)
                }
            }
            self = .mcuboot(MCUbootPackage(package))
        } else {
            self = .nordic(try DFUPackage(fileData: data, name: name, initPacketFile: initPacketFile))
        }
    }

    /// MCUboot's header magic, as the file starts with it (little-endian).
    private static let mcubootMagic: [UInt8] = [0x3D, 0xB8, 0xF3, 0x96]

    /// The bytes of an MCUboot image written as Intel HEX (`zephyr.signed.hex`): valid hex whose
    /// data starts with MCUboot's magic; nil for anything else, left to the Nordic reader.
    private static func mcubootImage(inHex data: Data) -> [UInt8]? {
        // Intel HEX starts with a record's colon (after blank space); refuse before decoding anything big.
        guard data.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D }) == UInt8(ascii: ":"),
            data.count <= 4 * DFUPackage.maximumEntrySize,
            let bytes = try? IntelHex.image(
                from: [UInt8](data), maximumSize: DFUPackage.maximumEntrySize, wordAligned: false),
            bytes.starts(with: mcubootMagic)
        else { return nil }
        return bytes
    }

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
