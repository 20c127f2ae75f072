import Foundation
import NordicDFU

/// A firmware file of any protocol family, told apart by its content (`PackageReader`): a
/// Nordic DFU package (an nrfutil `.zip`, or a bare `.bin`/`.hex`) or what MCUboot devices take
/// over SMP (an nRF Connect SDK `dfu_application.zip`, or one MCUboot image file).
public struct FirmwarePackage: Sendable {
    /// The package as its family offers it to updates.
    public let contents: any UpdatablePackage

    /// A package already read.
    public init(_ contents: any UpdatablePackage) {
        self.contents = contents
    }

    /// Reads `url`. An MCUboot image larger than `slotSize`, when given, is refused. Throws
    /// `DFUPackageError`, `MCUbootImageError` or `DFUApplicationPackageError`.
    public init(contentsOf url: URL, slotSize: Int? = nil) throws {
        let name = url.relativePath
        try self.init(
            data: try DFUPackage.readFile(url, name: name), name: name,
            initPacketFile: DFUPackage.initPacketFile(beside: url), slotSize: slotSize)
    }

    /// Reads a package from its bytes, a file known by `name` (whose extension tells a bare nRF5
    /// `.bin` / `.hex` apart): what a rollout store keeps, read without a file. A bare nRF5 image
    /// so read has no init packet.
    public init(bytes data: Data, name: String, slotSize: Int? = nil) throws {
        try self.init(data: data, name: name, initPacketFile: nil, slotSize: slotSize)
    }

    private init(data: Data, name: String, initPacketFile: URL?, slotSize: Int?) throws {
        for reader in Self.readers {
            if let package = try reader.read(
                data, name: name, initPacketFile: initPacketFile, slotSize: slotSize)
            {
                self.init(package)
                return
            }
        }
        throw DFUPackageError(
            .invalidZip, file: name,
            reason: "neither a zip (nrfutil's, or nRF Connect SDK's dfu_application.zip), an MCUboot "
                + "image (.bin or .hex) nor an nRF5 firmware file (.bin or .hex)")
    }
}
