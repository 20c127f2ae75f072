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
