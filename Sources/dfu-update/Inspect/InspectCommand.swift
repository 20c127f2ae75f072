import ArgumentParser
import FirmwareUpdate
import Foundation

/// `dfu-update inspect PKG [--public-key FILE] [--json]`: reads and checks a package, and describes
/// its images (docs/cli-contract.md, "inspect").
struct InspectCommand: ContractCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Check a DFU package or an MCUboot image and describe its images.",
        discussion: """
            Reads a .zip made by nrfutil (Secure or Legacy DFU), or a bare .bin/.hex application \
            (with the .dat of the same name beside it, if any), checks every init packet against \
            its image, and prints the images in the order they are sent. Reads an nRF Connect SDK \
            dfu_application.zip or an MCUboot image too: checks each image's SHA-256 TLV and, with \
            --public-key (PEM, ECDSA P-256 or Ed25519), its signature. Exit 65 when the package \
            is invalid, 66 when the file cannot be read.
            """)

    @Argument(help: "The package: .zip, a bare .bin/.hex firmware file, or an MCUboot image.")
    var package: String

    @Option(
        name: .customLong("public-key"),
        help: "Check signatures with this key: PEM, or nrfutil's 128-hex-digit form (Nordic packages).")
    var publicKey: String?

    @Flag(help: "Print one JSON object (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        // the key before the package: a key that is no key is a usage error whatever the package
        let key = try publicKey.map(PublicKeyFile.init(path:))
        let contents = try FirmwarePackage(contentsOf: URL(fileURLWithPath: self.package)).contents
        let description = try contents.accept(PackageInspector(file: self.package, key: key))
        Output.line(json ? description.json.serialized() : description.table)
        guard let key else { return }
        // a check asked for and failed: the description above says which image
        let verdict: SignatureVerdict
        do { verdict = try contents.verifySignatures(withKey: key.text) } catch {
            throw key.invalid(error)
        }
        if let failing = verdict.failing { try fail(failing) }
        if !json, !verdict.signed { Output.line(key.nothingToVerify) }
    }

    /// Exit 65 after a signature check asked for failed; a person reads why.
    private func fail(_ what: String) throws -> Never {
        if !json { Output.error("error: \(self.package): \(what) with \(publicKey ?? "the key")") }
        throw ExitCode.invalidPackage
    }
}
