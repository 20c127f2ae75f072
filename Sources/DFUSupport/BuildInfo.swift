/// What `--version` prints: the release, and the commit it was built from (`commit`, written by
/// the BuildInfo plugin at build time).
package enum BuildInfo {
    /// This release of dfu-update, dfu-sim and the library.
    package static let version = "0.1.0"

    /// `0.1.0 (commit 1234567890ab)`.
    package static var description: String { "\(version) (commit \(commit))" }
}
