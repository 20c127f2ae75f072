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
    /// The largest entry (or bare firmware image) read: 16 MiB, well above any nRF5 flash.
    public static let maximumEntrySize = 16 * 1024 * 1024

    /// The most all entries of a `.zip` may declare together: 64 MiB.
    public static let maximumArchiveSize = 4 * maximumEntrySize

    /// The file name the package was read from, as used in error messages.
    public let name: String
    /// The DFU protocol the package is made for.
    public let format: NordicDFUProtocol
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

    /// The package without its first `count` parts: what is left to send once the device took
    /// those (`DFUResult.partsActivated`).
    public func droppingParts(_ count: Int) -> DFUPackage {
        DFUPackage(name: name, format: format, dfuVersion: dfuVersion, images: Array(images.dropFirst(count)))
    }

    private init(name: String, format: NordicDFUProtocol, dfuVersion: Double?, images: [DFUImage]) {
        self.name = name
        self.format = format
        self.dfuVersion = dfuVersion
        self.images = images
    }

    /// For each image, whether its init packet's signature verifies against `key`; nil for an
    /// unsigned image.
    public func verifySignatures(with key: DFUPublicKey) -> [Bool?] {
        images.map { $0.verifySignature(with: key) }
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
}
