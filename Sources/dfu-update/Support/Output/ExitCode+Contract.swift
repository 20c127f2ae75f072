import ArgumentParser

/// The exit codes of docs/cli-contract.md ("Exit codes").
extension ExitCode {
    static let updateFailed = ExitCode(1)
    static let usage = ExitCode(64)
    static let invalidPackage = ExitCode(65)
    /// Input data that must not be used as it is (sysexits' EX_DATAERR): a passkey in an inventory.
    static let invalidData = ExitCode(65)
    static let fileNotFound = ExitCode(66)
    static let bluetoothUnavailable = ExitCode(69)
    /// The configuration must change before a new start can do better (sysexits' EX_CONFIG).
    static let configuration = ExitCode(78)
    static let interrupted = ExitCode(130)
}
