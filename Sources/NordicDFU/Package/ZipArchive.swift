import CZip

/// A zip archive read entirely in memory through libzip: nothing is extracted to disk.
///
/// Opening checks every entry's name, compression method, encryption flag and declared size, so
/// that a package is refused as a whole before any entry is inflated. Entries are found by name;
/// reading one inflates it in bounded steps, verifies its CRC-32 and its length, and never holds
/// more than ``DFUPackage/maximumEntrySize`` bytes of it.
///
/// The archive reads `bytes` in place: they must outlive it.
package final class ZipArchive {
    /// One entry, as the central directory describes it.
    package struct Entry {
        var index: UInt64
        var declaredSize: UInt64
    }

    let fileName: String
    private let archive: OpaquePointer
    /// Every entry by name (raw bytes decoded as UTF-8).
    package private(set) var entries: [String: Entry] = [:]

    package init(bytes: UnsafeRawBufferPointer, fileName: String) throws(DFUPackageError) {
        self.fileName = fileName
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw DFUPackageError(.invalidZip, file: fileName, reason: "the file is empty (0 bytes)")
        }
        do {
            archive = try Self.open(base, count: bytes.count, flags: ZIP_RDONLY)
        } catch let failure {
            throw Self.diagnose(failure, bytes: bytes, fileName: fileName)
        }
        // Every stored property is set by now, so a throw from here on runs deinit, which
        // discards the archive.
        entries = try Self.readDirectory(of: archive, fileName: fileName)
        // Only once the entries are known good: every local header must agree with the directory.
        try checkLocalHeaders(bytes)
    }

    deinit { zip_discard(archive) }

    /// The bytes of entry `name`, or nil when the archive has no such entry.
    package func contents(of name: String) throws(DFUPackageError) -> [UInt8]? {
        guard let entry = entries[name] else { return nil }
        let contents = try read(entry, name: name)
        verified.insert(name)
        return contents
    }

    /// Inflates and checks (CRC-32, length, size limit) every entry not read yet, so that damage
    /// anywhere in the archive is reported, as `unzip -t` would.
    func verifyUnread() throws(DFUPackageError) {
        for (name, entry) in entries.sorted(by: { $0.value.index < $1.value.index })
        where !verified.contains(name) {
            _ = try read(entry, name: name)
            verified.insert(name)
        }
    }

    /// Entries read and found sound.
    private var verified: Set<String> = []

    // MARK: - Reading

    private func read(_ entry: Entry, name: String) throws(DFUPackageError) -> [UInt8] {
        guard let file = zip_fopen_index(archive, entry.index, 0) else {
            throw failure(name, "it cannot be opened (\(String(cString: zip_strerror(archive))))")
        }
        defer { zip_fclose(file) }
        let declared = Int(entry.declaredSize)
        var filled = 0
        var contents = [UInt8](repeating: 0, count: declared)
        while filled < declared {
            let got = contents.withUnsafeMutableBytes { buffer in
                zip_fread(file, buffer.baseAddress! + filled, zip_uint64_t(declared - filled))
            }
            guard got > 0 else {
                if got < 0 { throw readFailure(file, name) }
                throw failure(name, "it inflates to \(filled) bytes, but declares \(declared)")
            }
            filled += Int(got)
        }
        // The declared length is reached: anything more means the entry lies about its size. Keep
        // inflating (into scratch space) only to tell a long entry from a deflate bomb.
        var extra = 0
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let got = scratch.withUnsafeMutableBytes { buffer in
                zip_fread(file, buffer.baseAddress!, zip_uint64_t(buffer.count))
            }
            if got < 0 { throw readFailure(file, name) }
            if got == 0 { break }
            extra += Int(got)
            if declared + extra > DFUPackage.maximumEntrySize {
                throw DFUPackageError(
                    .entryTooLarge, file: fileName, entry: name,
                    reason:
                        "it inflates to more than \(DFUPackage.maximumEntrySize) bytes (declares \(declared))"
                )
            }
        }
        if extra > 0 {
            throw failure(name, "it inflates to \(declared + extra) bytes, but declares \(declared)")
        }
        return contents
    }

    private func failure(_ name: String, _ reason: String) -> DFUPackageError {
        DFUPackageError(.invalidZip, file: fileName, entry: name, reason: reason)
    }

    private func readFailure(_ file: OpaquePointer, _ name: String) -> DFUPackageError {
        let error = zip_file_get_error(file)!
        switch zip_error_code_zip(error) {
        case ZIP_ER_CRC:
            return failure(name, "its contents do not match its CRC-32")
        case ZIP_ER_INCONS:
            return failure(name, "its inflated length differs from the length it declares")
        default:
            return failure(name, "it cannot be read (\(String(cString: zip_error_strerror(error))))")
        }
    }
}
