/// A file refused by a package reader of either family: its error class as docs/cli-contract.md
/// spells it, and a message that names the file (and entry) and says what to try.
package protocol PackageReadingError: Error {
    var errorClass: String { get }
    var message: String { get }
    /// Whether the file could not be read at all (the contract's exit 66, not 65).
    var isMissingFile: Bool { get }
}

extension PackageReadingError {
    package var isMissingFile: Bool { false }
}
