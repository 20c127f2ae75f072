import Foundation

/// A Nordic DFU package, read and checked: the images to send, in order, with their init packets.
///
/// Reads the `.zip` that `nrfutil pkg generate` (Secure DFU) or `nrfutil dfu genpkg` (Legacy DFU)
/// makes, entirely in memory, or a bare `.bin` / Intel `.hex` application with an optional `.dat`.
/// Every init packet is decoded and checked against its image (size, hash, CRC-16); signatures are
/// checked on request with ``verifySignatures(with:)``. Every failure throws a ``DFUPackageError``.
///
/// ```swift
/// let package = try DFUPackage(contentsOf: URL(fileURLWithPath: "Firmware/secure_app.zip"))
/// for image in package.images {
///     print(image.kind, image.firmware.count, image.initPacket?.count ?? 0)
/// }
/// ```
public struct DFUPackage: Sendable {
    /// Which DFU protocol the package is made for.
    public enum Format: String, Sendable {
        /// nRF5 SDK 12 and later (protobuf init packets).
        case secure
        /// nRF5 SDK 11 and earlier (packed-struct init packets).
        case legacy
    }

    /// The largest entry (or bare firmware image) read: 16 MiB, well above any nRF5 flash.
    public static let maximumEntrySize = 16 * 1024 * 1024

    /// The file name the package was read from, as used in error messages.
    public let name: String
    public let format: Format
    /// The Legacy manifest's `dfu_version` (0.5 … 0.8); nil for Secure packages and for bare
    /// firmware.
    public let dfuVersion: Double?
    /// The images in send order: the system image (SoftDevice and/or bootloader) first, the
    /// application last.
    public let images: [DFUImage]

    /// The version of the application the package installs, for the "already up to date" check:
    /// Secure `fw_version`, Legacy `application_version` of the application image's init packet.
    /// nil when the package holds no application or its init packet has no version.
    public var applicationVersion: UInt32? {
        images.first { $0.kind == .application }?.firmwareVersion
    }

    /// For each image, whether its init packet's signature verifies against `key`; nil for an
    /// unsigned image.
    public func verifySignatures(with key: DFUPublicKey) -> [Bool?] {
        images.map { $0.verifySignature(with: key) }
    }

    /// Reads a package file: a `.zip`, or a bare `.bin` / `.hex` application (with the `.dat` of
    /// the same base name beside it, when there is one).
    public init(contentsOf url: URL) throws(DFUPackageError) {
        let name = url.relativePath
        let data = try Self.readFile(url, name: name)
        let isZip = data.starts(with: [0x50, 0x4B])  // "PK"
        let fileExtension = url.pathExtension.lowercased()
        switch fileExtension {
        case "hex" where !isZip, "ihex" where !isZip, "bin" where !isZip:
            // Intel HEX takes about 2.8 characters per byte; refuse before copying anything big.
            let limit = fileExtension == "bin" ? Self.maximumEntrySize : 4 * Self.maximumEntrySize
            guard data.count <= limit else {
                throw DFUPackageError(
                    .entryTooLarge, file: name, reason: "\(data.count) bytes, more than the \(limit) allowed")
            }
            let datURL = url.deletingPathExtension().appendingPathExtension("dat")
            let dat =
                FileManager.default.fileExists(atPath: datURL.path)
                ? try Self.readFile(datURL, name: datURL.relativePath) : nil
            if fileExtension == "bin" {
                try self.init(firmware: [UInt8](data), initPacket: dat.map { [UInt8]($0) }, name: name)
            } else {
                try self.init(intelHex: [UInt8](data), initPacket: dat.map { [UInt8]($0) }, name: name)
            }
        default:
            try self.init(zipData: data, name: name)
        }
    }

    /// Reads a package from the bytes of its `.zip`; `name` is used in error messages.
    public init(zipData: Data, name: String) throws(DFUPackageError) {
        let result = zipData.withUnsafeBytes { bytes in
            Result { () throws(DFUPackageError) in try Self.readZip(bytes, name: name) }
        }
        (format, dfuVersion, images) = try result.get()
        self.name = name
    }

    /// A one-image application package from a bare firmware image (the bytes of a `.bin`, sent as
    /// they are) and optionally its init packet; a Secure or Legacy `.dat` is told apart by its
    /// contents. Without an init packet the package is Legacy: only Legacy bootloaders take an
    /// image without one.
    public init(firmware: [UInt8], initPacket: [UInt8]? = nil, name: String = "application.bin")
        throws(DFUPackageError)
    {
        guard firmware.count <= Self.maximumEntrySize else {
            throw DFUPackageError(
                .entryTooLarge, file: name,
                reason: "\(firmware.count) bytes, more than the \(Self.maximumEntrySize) allowed")
        }
        guard !firmware.isEmpty else {
            throw DFUPackageError(.imageEmpty, file: name, reason: "the firmware image is empty")
        }
        let binName = URL(fileURLWithPath: name).lastPathComponent
        let datName = initPacket.map { _ in
            URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent + ".dat"
        }
        var decoded: InitPacket?
        if let initPacket {
            if let secure = try? SecureInitPacket(decoding: initPacket) {
                decoded = .secure(secure)
            } else {
                do throws(InitPacketProblem) {
                    decoded = .legacy(try LegacyInitPacket(inferringVersionOf: initPacket))
                } catch {
                    throw DFUPackageError(
                        .initPacketInvalid, file: name, entry: datName,
                        reason: "neither a Secure (protobuf) nor a Legacy init packet (\(error.reason))")
                }
            }
        }
        let image = try Self.makeImage(
            kind: .application, binName: binName, datName: datName, firmware: firmware,
            initPacket: initPacket,
            decoded: decoded, manifestSizes: nil, file: name)
        self.name = name
        images = [image]
        if case .legacy(let packet) = decoded {
            format = .legacy
            dfuVersion = packet.version.dfuVersion
        } else {
            format = decoded == nil ? .legacy : .secure
            dfuVersion = nil
        }
    }

    /// A one-image application package from the text of an Intel HEX file (see ``init(firmware:initPacket:name:)``).
    /// The image is cut as Nordic's packagers cut it: lowest to highest address, gaps filled with
    /// 0xFF, MBR (below 0x1000) and UICR (0x10000000 and up) dropped, padded to 4 bytes.
    public init(intelHex: [UInt8], initPacket: [UInt8]? = nil, name: String = "application.hex")
        throws(DFUPackageError)
    {
        let firmware: [UInt8]
        do {
            firmware = try IntelHex.image(from: intelHex, maximumSize: Self.maximumEntrySize)
        } catch {
            throw DFUPackageError(
                error.tooLarge ? .entryTooLarge : .invalidHex, file: name, reason: error.reason)
        }
        guard !firmware.isEmpty else {
            throw DFUPackageError(
                .imageEmpty, file: name, reason: "the .hex holds no data between 0x1000 and 0x10000000")
        }
        try self.init(firmware: firmware, initPacket: initPacket, name: name)
    }

    // MARK: - Reading

    private static func readFile(_ url: URL, name: String) throws(DFUPackageError) -> Data {
        do {
            return try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            let reason =
                FileManager.default.fileExists(atPath: url.path)
                ? "the file cannot be read (\(error.localizedDescription))" : "no such file"
            throw DFUPackageError(.fileNotFound, file: name, reason: reason)
        }
    }

    private static func readZip(
        _ bytes: UnsafeRawBufferPointer, name: String
    ) throws(DFUPackageError) -> (Format, Double?, [DFUImage]) {
        let archive = try ZipArchive(bytes: bytes, fileName: name)
        guard let manifestJSON = try archive.contents(of: Manifest.entryName) else {
            throw DFUPackageError(
                .manifestMissing, file: name, reason: "no manifest.json at the root of the archive")
        }
        let manifest = try Manifest(json: manifestJSON, fileName: name)
        var images: [DFUImage] = []
        for entry in manifest.images {
            guard let firmware = try archive.contents(of: entry.binFile) else {
                throw DFUPackageError(
                    .imageMissing, file: name, entry: entry.binFile,
                    reason: "manifest.json names it for \(entry.kind.rawValue), but the archive lacks it")
            }
            var dat: [UInt8]?
            if let datFile = entry.datFile {
                dat = try archive.contents(of: datFile)
                if dat == nil {
                    throw DFUPackageError(
                        .imageMissing, file: name, entry: datFile,
                        reason: "manifest.json names it for \(entry.kind.rawValue), but the archive lacks it")
                }
            }
            var decoded: InitPacket?
            do throws(InitPacketProblem) {
                if let dat, let version = manifest.legacyVersion {
                    decoded = .legacy(try LegacyInitPacket(decoding: dat, version: version))
                } else if let dat {
                    decoded = .secure(try SecureInitPacket(decoding: dat))
                }
            } catch {
                throw packageError(error, file: name, entry: entry.datFile)
            }
            images.append(
                try makeImage(
                    kind: entry.kind, binName: entry.binFile, datName: entry.datFile, firmware: firmware,
                    initPacket: dat, decoded: decoded, manifestSizes: (entry.sdSize, entry.blSize), file: name
                ))
        }
        return (manifest.legacyVersion == nil ? .secure : .legacy, manifest.legacyVersion?.dfuVersion, images)
    }

    /// Builds one image after checking it against its init packet.
    private static func makeImage(
        kind: DFUImageKind, binName: String, datName: String?, firmware: [UInt8], initPacket: [UInt8]?,
        decoded: InitPacket?, manifestSizes: (sd: UInt32?, bl: UInt32?)?, file: String
    ) throws(DFUPackageError) -> DFUImage {
        guard !firmware.isEmpty else {
            throw DFUPackageError(
                .imageEmpty, file: file, entry: binName, reason: "the firmware image is 0 bytes")
        }
        var sdSize: UInt32?
        var blSize: UInt32?
        if kind == .softdeviceBootloader {
            (sdSize, blSize) = try softdeviceBootloaderSizes(
                manifest: manifestSizes, decoded: decoded, firmwareSize: firmware.count, file: file,
                binName: binName,
                datName: datName)
        }
        let image = DFUImage(
            kind: kind, binName: binName, datName: datName, firmware: firmware, initPacket: initPacket,
            decodedInitPacket: decoded, sdSize: sdSize, blSize: blSize)
        do throws(InitPacketProblem) {
            switch decoded {
            case .secure(let packet): try packet.check(against: firmware, kind: kind, sha256: image.sha256)
            case .legacy(let packet):
                try packet.check(against: firmware, crc16: image.crc16, sha256: image.sha256)
            case nil: break
            }
        } catch {
            throw packageError(error, file: file, entry: datName)
        }
        return image
    }

    /// The SoftDevice and bootloader sizes of a merged image: the manifest's, else the Secure init
    /// packet's; they must add up to the image, and agree with the init packet when both exist.
    private static func softdeviceBootloaderSizes(
        manifest: (sd: UInt32?, bl: UInt32?)?, decoded: InitPacket?, firmwareSize: Int, file: String,
        binName: String, datName: String?
    ) throws(DFUPackageError) -> (UInt32, UInt32) {
        var sizes: (sd: UInt32, bl: UInt32)?
        if let sd = manifest?.sd, let bl = manifest?.bl {
            sizes = (sd, bl)
            guard UInt64(sd) + UInt64(bl) == UInt64(firmwareSize) else {
                throw DFUPackageError(
                    .manifestInvalid, file: file, entry: Manifest.entryName,
                    reason: "sd_size \(sd) + bl_size \(bl) is not the \(firmwareSize) bytes of \(binName)")
            }
        }
        if case .secure(let packet) = decoded {
            if let sizes, sizes != (packet.sdSize, packet.blSize) {
                throw DFUPackageError(
                    .initPacketMismatch, file: file, entry: datName,
                    reason:
                        "sd_size \(packet.sdSize) / bl_size \(packet.blSize) differ from the manifest's \(sizes.sd) / \(sizes.bl)"
                )
            }
            sizes = sizes ?? (packet.sdSize, packet.blSize)
        }
        guard let sizes else {
            throw DFUPackageError(
                .manifestInvalid, file: file, entry: Manifest.entryName,
                reason: "softdevice_bootloader gives no sd_size and bl_size")
        }
        return sizes
    }

    private static func packageError(_ problem: InitPacketProblem, file: String, entry: String?)
        -> DFUPackageError
    {
        DFUPackageError(
            problem.kind == .invalid ? .initPacketInvalid : .initPacketMismatch, file: file, entry: entry,
            reason: problem.reason)
    }
}
