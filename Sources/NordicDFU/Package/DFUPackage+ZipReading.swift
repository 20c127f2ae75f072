/// Reading a package from the bytes of its `.zip`: manifest, images and init packets.
extension DFUPackage {
    static func readZip(
        _ bytes: UnsafeRawBufferPointer, name: String
    ) throws(DFUPackageError) -> (NordicDFUProtocol, Double?, [DFUImage]) {
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
        try archive.verifyUnread()
        return (manifest.legacyVersion == nil ? .secure : .legacy, manifest.legacyVersion?.dfuVersion, images)
    }
}
