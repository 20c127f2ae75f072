import Foundation

/// Reading a package from a file: a `.zip`, or a bare `.bin` / `.hex` with its `.dat`.
extension DFUPackage {
    /// Reads a package file: a `.zip`, or a bare `.bin` / `.hex` application (with the `.dat` of
    /// the same base name beside it, when there is one).
    public init(contentsOf url: URL) throws(DFUPackageError) {
        try self.init(fileData: try Self.readFile(url, name: url.relativePath), of: url)
    }

    /// Where a bare `.bin` / `.hex` image's init packet is looked for: the `.dat` of the same
    /// base name beside it.
    public static func initPacketFile(beside image: URL) -> URL {
        image.deletingPathExtension().appendingPathExtension("dat")
    }

    /// The package in `data`, the bytes of the file at `url` already read (`readFile`), so that
    /// a caller that looked at them first does not read the file again. The extension tells a
    /// bare `.bin` / `.hex` apart; its `.dat` is read from beside `url`.
    package init(fileData data: Data, of url: URL) throws(DFUPackageError) {
        try self.init(
            fileData: data, name: url.relativePath,
            initPacketFile: Self.initPacketFile(beside: url))
    }

    /// The package in `data`, a file's bytes known by `name`, whose extension tells a bare
    /// `.bin` / `.hex` apart. Such an image's `.dat` is read from `initPacketFile` when there is
    /// one; nil when the bytes come from no folder (a rollout store's copy).
    package init(fileData data: Data, name: String, initPacketFile: URL?) throws(DFUPackageError) {
        let isZip = data.starts(with: [0x50, 0x4B])  // "PK"
        let fileExtension = URL(fileURLWithPath: name).pathExtension.lowercased()
        switch fileExtension {
        case "hex" where !isZip, "ihex" where !isZip, "bin" where !isZip:
            // Intel HEX takes about 2.8 characters per byte; refuse before copying anything big.
            let limit = fileExtension == "bin" ? Self.maximumEntrySize : 4 * Self.maximumEntrySize
            guard data.count <= limit else {
                throw DFUPackageError(
                    .entryTooLarge, file: name, reason: "\(data.count) bytes, more than the \(limit) allowed")
            }
            let dat =
                try initPacketFile.flatMap { file throws(DFUPackageError) in
                    FileManager.default.fileExists(atPath: file.path)
                        ? try Self.readFile(file, name: file.relativePath) : nil
                }
            if fileExtension == "bin" {
                try self.init(firmware: [UInt8](data), initPacket: dat.map { [UInt8]($0) }, name: name)
            } else {
                try self.init(intelHex: [UInt8](data), initPacket: dat.map { [UInt8]($0) }, name: name)
            }
        default:
            try self.init(zipData: data, name: name)
        }
    }

    /// The file's bytes, memory-mapped: only the pages the reader touches are loaded, so a huge
    /// file that is not a package costs neither time nor memory.
    package static func readFile(_ url: URL, name: String) throws(DFUPackageError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw DFUPackageError(.fileNotFound, file: name, reason: "no such file")
        }
        let type =
            try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)[.type]
            as? FileAttributeType
        guard !isDirectory.boolValue, type == .typeRegular else {
            throw DFUPackageError(
                .fileNotFound, file: name,
                reason: isDirectory.boolValue ? "it is a directory, not a file" : "it is not a regular file")
        }
        do {
            // Where the file system cannot map the file, read it whole.
            return try (try? Data(contentsOf: url, options: .alwaysMapped)) ?? Data(contentsOf: url)
        } catch {
            throw DFUPackageError(
                .fileNotFound, file: name, reason: "the file cannot be read (\(error.localizedDescription))")
        }
    }
}
