import Foundation

/// The folder of an embedded store's file, made when it is missing (by `rollout create` and
/// `rollout migrate`, which make the store too).
enum StoreFolder {
    /// Makes the folder of the store file `path`, named by `origin` (`--store`, …). A folder that
    /// cannot be made (a file where a folder should be, no permission) is `store_error`, naming
    /// what failed, the path and what to try.
    static func make(for path: String, origin: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure(
                errorClass: "store_error",
                message:
                    "the rollout store failed: the folder \(folder.path) of \(path) (\(origin)) cannot be "
                    + "made: \(reason(folder: folder, error: error)); give a store file in a folder that exists "
                    + "or that you may create",
                exitCode: .updateFailed)
        }
    }

    /// Why `folder` could not be made: the part of its path that is a file, else the system's
    /// reason (no permission, a read-only file system).
    private static func reason(folder: URL, error: any Error) -> String {
        var ancestor = folder
        while ancestor.path != "/" {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: ancestor.path, isDirectory: &isFolder) {
                return isFolder.boolValue ? systemReason(of: error) : "\(ancestor.path) is not a folder"
            }
            ancestor.deleteLastPathComponent()
        }
        return systemReason(of: error)
    }

    /// The POSIX error under Foundation's, in the system's words.
    private static func systemReason(of error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        guard let underlying, underlying.domain == NSPOSIXErrorDomain else {
            return error.localizedDescription
        }
        return String(cString: strerror(Int32(underlying.code)))
    }
}
