/// Checking each image against its init packet and the manifest before it joins a package.
extension DFUPackage {
    /// Builds one image after checking it against its init packet.
    static func makeImage(
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

    static func packageError(_ problem: InitPacketProblem, file: String, entry: String?)
        -> DFUPackageError
    {
        DFUPackageError(
            problem.kind == .invalid ? .initPacketInvalid : .initPacketMismatch, file: file, entry: entry,
            reason: problem.reason)
    }
}
