import FirmwareUpdate
import Foundation
import MCUmgr
import NordicDFU

/// `--public-key FILE` read as either family's key (`inspect`, `flash`): refused (exit 64) when it
/// is neither, or not the package's family's.
struct PublicKeyFile {
    /// The path as the user gave it.
    var path: String
    /// The file's text, as each family reads its key from it.
    var text: String
    private var nordicKey: Result<DFUPublicKey, any Error>
    private var mcubootKey: Result<MCUbootPublicKey, any Error>

    /// Reads `path`; a missing file is `file_not_found` (exit 66), a file that holds no key of
    /// either family `invalid_public_key` (exit 64).
    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(
                errorClass: DFUPackageError.Kind.fileNotFound.rawValue,
                message: "\(path): the public key file cannot be read; check the path and its permissions",
                exitCode: .fileNotFound)
        }
        let text = String(decoding: data, as: UTF8.self)
        self.path = path
        self.text = text
        nordicKey = Result { try DFUPublicKey(text: text) }
        mcubootKey = Result { try MCUbootPublicKey(pem: text) }
        if case .failure(let error) = nordicKey, case .failure = mcubootKey {
            throw invalid(error, advice: "give a PEM public key or nrfutil's hex form (nrfutil keys display)")
        }
    }

    /// The key as a Nordic DFU package's init packets are signed.
    func nordic() throws -> DFUPublicKey {
        do { return try nordicKey.get() } catch {
            throw invalid(error, advice: "give the key the package was signed with (nrfutil keys display)")
        }
    }

    /// The key as MCUboot images are signed (ECDSA P-256 or Ed25519).
    func mcuboot() throws -> MCUbootPublicKey {
        do { return try mcubootKey.get() } catch {
            throw invalid(error, advice: "give the PEM key the image was signed for (imgtool getpub)")
        }
    }

    /// What `inspect` and `flash` say of a package with no signed image: nothing to verify.
    var nothingToVerify: String { "no image is signed: nothing to verify with \(path)" }

    /// `invalid_public_key` for a key the package's family cannot read.
    func invalid(_ unreadable: SigningKeyUnreadable) -> CommandFailure {
        CommandFailure(
            errorClass: "invalid_public_key", message: "\(path): \(unreadable)", exitCode: .usage)
    }

    private func invalid(_ error: any Error, advice: String) -> CommandFailure {
        CommandFailure(
            errorClass: "invalid_public_key", message: "\(path): \(error); \(advice)", exitCode: .usage)
    }
}
