import Foundation

/// A file an option names for the command to write (`fleet --report`, `--state`), checked
/// before any device is touched: found unwritable after the updates, the report or the record
/// of finished devices would be lost.
enum OutputFilePath {
    /// Why `path` cannot be written, naming `option`; nil when it can.
    static func problem(_ path: String, option: String) -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return "\(option) \(path) is a folder; name a file in it"
        }
        // The file is written beside and renamed over the path: a device, pipe or socket there
        // (/dev/null, /dev/stdout) would be replaced by a file, a device node even, run as root.
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            return "\(option) \(path) is not a regular file (a device, a pipe or a socket); name a file"
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder) else {
            return
                "\(option) \(path): the folder \(folder) does not exist; create it, or name a file in another"
        }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            return "\(option) \(path): the folder \(folder) is not writable"
        }
        return nil
    }

    /// Why `path` must not be written over: it is one of `inputs` (a name for each, such as
    /// "the inventory"), which the run reads and an operator keeps; nil when it is none of them.
    static func overwrites(_ path: String, option: String, inputs: [(name: String, path: String)]) -> String?
    {
        guard let input = inputs.first(where: { sameFile(path, $0.path) }) else { return nil }
        return "\(option) \(path) is \(input.name); name another file, or it would be written over"
    }

    /// Whether the two paths name one file: the same file on disk (through a link or another
    /// spelling of the path), or for a file not made yet, the same path.
    static func sameFile(_ first: String, _ second: String) -> Bool {
        var one = stat()
        var other = stat()
        if stat(first, &one) == 0, stat(second, &other) == 0 {
            return one.st_dev == other.st_dev && one.st_ino == other.st_ino
        }
        let resolved = { (path: String) in
            URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        }
        return resolved(first) == resolved(second)
    }

    /// Why writing `path` failed once `problem` had found it writable, in our words: what
    /// `problem` finds now (the folder removed meanwhile, or made read-only), else the system's
    /// reason (a full disk) and what to try.
    static func writeFailure(_ path: String, option: String, error: any Error) -> String {
        if let problem = problem(path, option: option) { return problem }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let reason = systemReason(error).map { "\($0.prefix(1).lowercased())\($0.dropFirst())" }
        return
            "\(option) \(path) could not be written (\(reason ?? "the system refused the write")); make room in \(folder) or name a file on another disk"
    }

    /// The operating system's words for the errno behind `error`, when there is one.
    private static func systemReason(_ error: any Error) -> String? {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))) }
        return (error.userInfo[NSUnderlyingErrorKey] as? any Error).flatMap(systemReason)
    }
}
