import CZip

/// Opening an archive in memory, and telling why libzip refused one.
extension ZipArchive {
    struct LibzipError: Error {
        var code: Int32
        var text: String
    }

    static func open(
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

    static func diagnose(
        _ failure: LibzipError, bytes: UnsafeRawBufferPointer, fileName: String
    ) -> DFUPackageError {
        switch failure.code {
        case ZIP_ER_NOZIP:
            return DFUPackageError(
                .invalidZip, file: fileName,
                reason: "not a zip archive (no end-of-central-directory record found)")
        case ZIP_ER_EXISTS:
            return DFUPackageError(.duplicateEntry, file: fileName, reason: "two entries share a name")
        default:
            // libzip refuses some methods it cannot describe (AES, method 99) as inconsistency.
            let headers = ZipLocalHeaders(bytes)
            if let records = try? headers.records(),
                let odd = records.first(where: { $0.flags & 1 != 0 || ($0.method != 0 && $0.method != 8) })
            {
                return DFUPackageError(
                    .unsupportedCompression, file: fileName,
                    entry: String(decoding: odd.name, as: UTF8.self),
                    reason: odd.flags & 1 != 0
                        ? "the entry is encrypted"
                        : "compression method \(odd.method) (only stored and deflate are read)")
            }
            return DFUPackageError(
                .invalidZip, file: fileName, reason: "the zip is damaged (\(failure.text))")
        }
    }
}
