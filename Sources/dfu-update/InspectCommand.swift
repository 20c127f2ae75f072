import ArgumentParser
import Foundation
import MCUmgr
import NordicDFU

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
        let firmware = try FirmwarePackage(contentsOf: URL(fileURLWithPath: self.package))
        guard case .nordic(let package) = firmware else {
            if case .mcuboot(let images) = firmware { try describe(images) }
            return
        }
        let key = try publicKey.map(Self.readKey)
        let report = PackageReport(package: package, file: self.package, key: key)
        Output.line(json ? report.json.serialized() : report.table)
        // a check asked for and failed: the description above says which image
        if let key, let failing = package.images.firstIndex(where: { $0.verifySignature(with: key) == false })
        {
            if !json {
                Output.error(
                    "error: \(self.package): the signature of image \(failing + 1) does not verify with "
                        + "\(publicKey ?? "the key")")
            }
            throw ExitCode.invalidPackage
        }
    }

    /// Describes an MCUboot update; exit 65 when a signature check asked for fails.
    private func describe(_ package: MCUbootPackage) throws {
        let key = try publicKey.map { path in
            let text = try Self.keyText(path)
            do {
                return try MCUbootPublicKey(pem: text)
            } catch {
                throw CommandFailure(
                    errorClass: "invalid_public_key",
                    message: "\(path): \(error); give the PEM key the image was signed for (imgtool getpub)",
                    exitCode: .usage)
            }
        }
        let report = MCUbootPackageReport(package: package, file: self.package, key: key)
        Output.line(json ? report.json.serialized() : report.table)
        if report.signatureFails {
            if !json {
                Output.error(
                    "error: \(self.package): a signature does not verify with \(publicKey ?? "the key")")
            }
            throw ExitCode.invalidPackage
        }
    }

    private static func keyText(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(
                errorClass: DFUPackageError.Kind.fileNotFound.rawValue,
                message: "\(path): the public key file cannot be read; check the path and its permissions",
                exitCode: .fileNotFound)
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func readKey(_ path: String) throws -> DFUPublicKey {
        let text = try keyText(path)
        do {
            return try DFUPublicKey(text: text)
        } catch {
            throw CommandFailure(
                errorClass: "invalid_public_key",
                message:
                    "\(path): \(error); give a PEM public key or nrfutil's hex form (nrfutil keys display)",
                exitCode: .usage)
        }
    }
}
