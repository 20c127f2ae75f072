import Foundation
import NordicDFU

/// Nordic DFU's files: any zip (nrfutil's; its manifest is checked in reading) and bare
/// `.bin` / `.hex` images, with the init packet beside them when there is one.
struct NordicPackageReader: PackageReader {
    func read(_ data: Data, name: String, initPacketFile: URL?, slotSize: Int?) throws -> (
        any UpdatablePackage
    )? {
        let isZip = data.starts(with: [0x50, 0x4B])
        let fileExtension = URL(fileURLWithPath: name).pathExtension.lowercased()
        guard isZip || ["bin", "hex", "ihex", "zip"].contains(fileExtension) else { return nil }
        return try DFUPackage(fileData: data, name: name, initPacketFile: initPacketFile)
    }
}
