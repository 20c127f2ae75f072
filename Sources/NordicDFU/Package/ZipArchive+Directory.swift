import CZip

/// The checks of the central directory that run before any entry is inflated.
extension ZipArchive {
    /// Lists the entries, refusing unsafe or repeated names, unsupported methods, encryption and
    /// oversized entries.
    static func readDirectory(
        of archive: OpaquePointer, fileName: String
    ) throws(DFUPackageError) -> [String: Entry] {
        let count = zip_get_num_entries(archive, 0)
        guard count >= 0 else {
            throw DFUPackageError(.invalidZip, file: fileName, reason: "the central directory cannot be read")
        }
        var entries: [String: Entry] = [:]
        var declaredTotal: UInt64 = 0
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
            // Every entry is inflated to be checked: bound the sum too, or many entries of 16 MiB
            // of zeros (a few KiB each, compressed) would cost seconds.
            declaredTotal += stat.size
            if declaredTotal > UInt64(DFUPackage.maximumArchiveSize) {
                throw DFUPackageError(
                    .entryTooLarge, file: fileName, entry: name,
                    reason:
                        "with it the entries declare more than the \(DFUPackage.maximumArchiveSize) bytes a package may hold in all"
                )
            }
        }
        return entries
    }

    /// Compares every local header with the central directory (see ``ZipLocalHeaders``).
    func checkLocalHeaders(_ bytes: UnsafeRawBufferPointer) throws(DFUPackageError) {
        var names = [String](repeating: "", count: entries.count)
        for (name, entry) in entries { names[Int(entry.index)] = name }
        let headers = ZipLocalHeaders(bytes)
        let records: [ZipLocalHeaders.Record]
        do throws(ZipLocalHeaders.Inconsistent) {
            records = try headers.records()
        } catch {
            throw DFUPackageError(
                .invalidZip, file: fileName, reason: "the central directory is damaged (\(error.reason))")
        }
        guard records.count == names.count else {
            throw DFUPackageError(
                .invalidZip, file: fileName,
                reason:
                    "the central directory holds \(records.count) records, but the end record counts \(names.count)"
            )
        }
        for (record, name) in zip(records, names) {
            // libzip shows a NUL inside a name as another character; a C program extracting the
            // archive would cut the name there ("app.bin\0x" becomes "app.bin").
            guard !record.name.contains(0) else {
                throw DFUPackageError(
                    .unsafeEntryPath, file: fileName, entry: name, reason: "the name holds a NUL byte")
            }
            do throws(ZipLocalHeaders.Inconsistent) {
                guard String(decoding: record.name, as: UTF8.self) == name else {
                    throw ZipLocalHeaders.Inconsistent(
                        reason: "the central directory cannot be read consistently")
                }
                try headers.check(record)
            } catch {
                throw DFUPackageError(.invalidZip, file: fileName, entry: name, reason: error.reason)
            }
        }
    }
}
