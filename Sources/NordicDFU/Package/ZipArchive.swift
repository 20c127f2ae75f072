import CZip

/// A zip archive read entirely in memory through libzip: nothing is extracted to disk.
///
/// Opening checks every entry's name, compression method, encryption flag and declared size, so
/// that a package is refused as a whole before any entry is inflated. Entries are found by name;
/// reading one inflates it in bounded steps, verifies its CRC-32 and its length, and never holds
/// more than ``DFUPackage/maximumEntrySize`` bytes of it.
///
/// The archive reads `bytes` in place: they must outlive it.
final class ZipArchive {
    /// One entry, as the central directory describes it.
    struct Entry {
        var index: UInt64
        var declaredSize: UInt64
    }

    let fileName: String
    private let archive: OpaquePointer
    /// Every entry by name (raw bytes decoded as UTF-8).
    private(set) var entries: [String: Entry] = [:]

    init(bytes: UnsafeRawBufferPointer, fileName: String) throws(DFUPackageError) {
        self.fileName = fileName
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw DFUPackageError(.invalidZip, file: fileName, reason: "the file is empty (0 bytes)")
        }
        do {
            archive = try Self.open(base, count: bytes.count, flags: ZIP_RDONLY)
        } catch let failure {
            throw Self.diagnose(failure, fileName: fileName)
        }
        // Every stored property is set by now, so a throw from here on runs deinit, which
        // discards the archive.
        entries = try Self.readDirectory(of: archive, fileName: fileName)
        // Only once the entries are known good: libzip's stricter pass (ZIP_CHECKCONS) compares
        // every local header with the central directory. It would also refuse some of the above
        // (duplicate names, odd methods), but without saying which, so it comes second.
        do {
            zip_discard(try Self.open(base, count: bytes.count, flags: ZIP_RDONLY | ZIP_CHECKCONS))
        } catch let failure {
            throw DFUPackageError(
                .invalidZip, file: fileName,
                reason: "the zip is damaged: libzip's consistency check failed (\(failure.text))")
        }
    }

    deinit { zip_discard(archive) }

    /// The bytes of entry `name`, or nil when the archive has no such entry.
    func contents(of name: String) throws(DFUPackageError) -> [UInt8]? {
        guard let entry = entries[name] else { return nil }
        return try read(entry, name: name)
    }

    // MARK: - Opening

    private struct LibzipError: Error {
        var code: Int32
        var text: String
    }

    private static func open(
        _ base: UnsafeRawPointer, count: Int, flags: Int32
    ) throws(LibzipError) -> OpaquePointer {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(base, zip_uint64_t(count), 0, &error) else {
            throw LibzipError(
                code: zip_error_code_zip(&error), text: String(cString: zip_error_strerror(&error)))
        }
        guard let archive = zip_open_from_source(source, flags, &error) else {
            zip_source_free(source)
            throw LibzipError(
                code: zip_error_code_zip(&error), text: String(cString: zip_error_strerror(&error)))
        }
        return archive
    }

    private static func diagnose(_ failure: LibzipError, fileName: String) -> DFUPackageError {
        switch failure.code {
        case ZIP_ER_NOZIP:
            return DFUPackageError(
                .invalidZip, file: fileName,
                reason: "not a zip archive (no end-of-central-directory record found)")
        case ZIP_ER_EXISTS:
            return DFUPackageError(.duplicateEntry, file: fileName, reason: "two entries share a name")
        default:
            return DFUPackageError(
                .invalidZip, file: fileName, reason: "the zip is damaged (\(failure.text))")
        }
    }

    /// Lists the entries, refusing unsafe or repeated names, unsupported methods, encryption and
    /// oversized entries.
    private static func readDirectory(
        of archive: OpaquePointer, fileName: String
    ) throws(DFUPackageError) -> [String: Entry] {
        let count = zip_get_num_entries(archive, 0)
        guard count >= 0 else {
            throw DFUPackageError(.invalidZip, file: fileName, reason: "the central directory cannot be read")
        }
        var entries: [String: Entry] = [:]
        for index in 0..<UInt64(count) {
            var stat = zip_stat_t()
            zip_stat_init(&stat)
            guard zip_stat_index(archive, index, zip_flags_t(ZIP_FL_ENC_RAW), &stat) == 0,
                let rawName = stat.name
            else {
                throw DFUPackageError(
                    .invalidZip, file: fileName, reason: "central directory entry \(index) cannot be read")
            }
            let name = String(cString: rawName)
            guard EntryPath.isSafe(name) else {
                throw DFUPackageError(
                    .unsafeEntryPath, file: fileName, entry: name,
                    reason: "the name is an absolute path or climbs out of the archive with '..'")
            }
            guard entries[name] == nil else {
                throw DFUPackageError(
                    .duplicateEntry, file: fileName, entry: name, reason: "two entries have this name")
            }
            if stat.encryption_method != UInt16(ZIP_EM_NONE) {
                throw DFUPackageError(
                    .unsupportedCompression, file: fileName, entry: name, reason: "the entry is encrypted")
            }
            if stat.comp_method != ZIP_CM_STORE && stat.comp_method != ZIP_CM_DEFLATE {
                throw DFUPackageError(
                    .unsupportedCompression, file: fileName, entry: name,
                    reason: "compression method \(stat.comp_method) (only stored and deflate are read)")
            }
            if stat.size > UInt64(DFUPackage.maximumEntrySize) {
                throw DFUPackageError(
                    .entryTooLarge, file: fileName, entry: name,
                    reason:
                        "it declares \(stat.size) bytes, more than the \(DFUPackage.maximumEntrySize) allowed"
                )
            }
            entries[name] = Entry(index: index, declaredSize: stat.size)
        }
        return entries
    }

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

/// The rule for names inside a package: relative, and never climbing out with `..`.
enum EntryPath {
    /// Whether `name` stays inside the archive root, with either `/` or `\` as separator.
    static func isSafe(_ name: String) -> Bool {
        guard !name.isEmpty, !name.utf8.contains(0) else { return false }
        let utf8 = Array(name.utf8)
        if utf8[0] == UInt8(ascii: "/") || utf8[0] == UInt8(ascii: "\\") { return false }
        // A drive letter ("C:") makes a Windows path absolute.
        if utf8.count >= 2, utf8[1] == UInt8(ascii: ":") { return false }
        let components = name.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }
        return !components.contains("..")
    }
}
