import Foundation
import MCUmgr
import NordicDFU

/// MCUboot's files: one image (`.bin`, or Intel HEX as `zephyr.signed.hex`), told by MCUboot's
/// header magic, or an nRF Connect SDK `dfu_application.zip`, told by its manifest's `files`
/// list (nrfutil's has a `manifest` object instead).
struct MCUbootPackageReader: PackageReader {
    func read(_ data: Data, name: String, initPacketFile: URL?, slotSize: Int?) throws -> (
        any UpdatablePackage
    )? {
        if let bytes = data.starts(with: Self.magic) ? [UInt8](data) : Self.image(inHex: data) {
            return MCUbootPackage(image: try MCUbootImage(bytes: bytes, name: name, slotSize: slotSize))
        }
        guard data.starts(with: [0x50, 0x4B]), let entries = try Self.nrfConnectEntries(data, name: name)
        else {
            return nil
        }
        let package = try DFUApplicationPackage(entries: entries, name: name)
        if let slotSize {
            for image in package.images {
                _ = try MCUbootImage(bytes: image.image.bytes, name: image.image.name, slotSize: slotSize)
            }
        }
        return MCUbootPackage(package)
    }

    /// MCUboot's header magic, as the file starts with it (little-endian).
    private static let magic: [UInt8] = [0x3D, 0xB8, 0xF3, 0x96]

    /// The bytes of an MCUboot image written as Intel HEX: valid hex whose data starts with
    /// MCUboot's magic; nil for anything else, left to the next reader.
    private static func image(inHex data: Data) -> [UInt8]? {
        // Intel HEX starts with a record's colon (after blank space); refuse before decoding anything big.
        guard data.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D }) == UInt8(ascii: ":"),
            data.count <= 4 * DFUPackage.maximumEntrySize,
            let bytes = try? IntelHex.image(
                from: [UInt8](data), maximumSize: DFUPackage.maximumEntrySize, wordAligned: false),
            bytes.starts(with: magic)
        else { return nil }
        return bytes
    }

    /// The entries of a zip whose manifest is an nRF Connect SDK one; nil for any other zip.
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
