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
}
