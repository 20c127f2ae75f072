import Foundation

/// The `manifest.json` of an nRF Connect SDK `dfu_application.zip` (nrf
/// `scripts/bootloader/generate_zip.py`, fed by `cmake/sysbuild/zip.cmake`).
///
/// `{"format-version": 0, "time": …, "name"?: …, "files": [{…}, …]}`. Each file's keys come
/// from the build as `key=value` pairs: a value that starts with `0x` is written as a number,
/// every other one as a string, so `image_index` is `"0"`, not `0`; `size`, `file` and
/// `modtime` are added by the script. Numbers are read here from either form.
public struct DFUApplicationManifest: Hashable, Sendable {
    public static let entryName = "manifest.json"

    /// One `files[]` entry.
    public struct File: Hashable, Sendable {
        /// The entry's name in the zip (`app_update.bin` before sysbuild, `<app>.signed.bin`,
        /// `<netcore app>.bin`, `nrf70.bin`, …).
        public var file: String
        /// MCUboot's image number: 0 the application; the network core's and the nRF70 Wi-Fi
        /// patches' numbers are set by the build (the network core is usually 1).
        public var imageIndex: Int
        /// `type`: `application` for all of these.
        public var type: String?
        public var board: String?
        public var soc: String?
        public var loadAddress: UInt64?
        /// `slot_index_primary` / `slot_index_secondary`, counted from 1.
        public var primarySlot: Int?
        public var secondarySlot: Int?
        /// `slot` of the DirectXIP and secure bootloader (s0/s1) variants: the one slot this
        /// image is built for.
        public var slot: Int?
        /// `version_MCUBOOT` (or `version_MCUBOOT+XIP`): the version it was signed with.
        public var mcubootVersion: String?
        /// `version`: the network core's, an MCUboot version or a secure bootloader counter.
        public var version: String?
        /// `size`: the entry's length.
        public var size: Int?
    }

    public var formatVersion: Int?
    /// `name`, the build's label for the update, when it set one.
    public var name: String?
    public var files: [File]

    init(json: [UInt8], package: String) throws(DFUApplicationPackageError) {
        func invalid(_ reason: String) -> DFUApplicationPackageError {
            DFUApplicationPackageError(
                .manifestInvalid, package: package, entry: Self.entryName, reason: reason)
        }
        guard let root = try? JSONSerialization.jsonObject(with: Data(json)), let top = root as? [String: Any]
        else { throw invalid("not a JSON object") }
        guard let list = top["files"] as? [Any] else { throw invalid("no files list") }
        formatVersion = try Self.integer(top["format-version"], "format-version", invalid)
        name = top["name"] as? String
        files = []
        for (index, item) in list.enumerated() {
            guard let entry = item as? [String: Any] else {
                throw invalid("files[\(index)] is not an object")
            }
            func number(_ key: String) throws(DFUApplicationPackageError) -> Int? {
                try Self.integer(entry[key], "files[\(index)].\(key)", invalid)
            }
            guard let file = entry["file"] as? String, !file.isEmpty else {
                throw invalid("files[\(index)] has no file name")
            }
            guard let imageIndex = try number("image_index") else {
                throw invalid("files[\(index)] (\(file)) has no image_index")
            }
            let loadAddress = try number("load_address")
            files.append(
                File(
                    file: file, imageIndex: imageIndex, type: entry["type"] as? String,
                    board: entry["board"] as? String, soc: entry["soc"] as? String,
                    loadAddress: loadAddress.map { UInt64($0) },
                    primarySlot: try number("slot_index_primary"),
                    secondarySlot: try number("slot_index_secondary"), slot: try number("slot"),
                    mcubootVersion: (entry["version_MCUBOOT"] ?? entry["version_MCUBOOT+XIP"]).map {
                        "\($0)"
                    },
                    version: entry["version"].map { "\($0)" }, size: try number("size")))
        }
        guard !files.isEmpty else { throw invalid("the files list is empty") }
    }

    /// A non-negative integer given as a JSON number or as a decimal or `0x` string; nil when the
    /// key is absent.
    private static func integer(
        _ value: Any?, _ key: String, _ invalid: (String) -> DFUApplicationPackageError
    ) throws(DFUApplicationPackageError) -> Int? {
        guard let value else { return nil }
        if let text = value as? String {
            let parsed = text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
            guard let parsed, parsed >= 0 else { throw invalid("\(key) \"\(text)\" is not a number") }
            return parsed
        }
        guard let number = value as? NSNumber,
            let integer = Int(exactly: number.doubleValue), integer >= 0
        else { throw invalid("\(key) is not a non-negative integer") }
        return integer
    }
}
