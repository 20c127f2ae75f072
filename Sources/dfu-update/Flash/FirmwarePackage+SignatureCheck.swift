import FirmwareUpdate
import MCUmgr
import NordicDFU

extension FirmwarePackage {
    /// `flash --public-key`: before connecting, every signed image must verify with the key, or
    /// the update is refused as `signature_invalid` (exit 65, as `inspect` exits). Returns whether
    /// any image is signed at all (an unsigned package has nothing to verify).
    func checkSignatures(with key: PublicKeyFile, file: String) throws -> Bool {
        let failing: String?
        let signed: Bool
        switch self {
        case .nordic(let package):
            let nordic = try key.nordic()
            let checks = package.images.map { $0.verifySignature(with: nordic) }
            signed = checks.contains { $0 != nil }
            failing = checks.firstIndex(of: false).map { "the signature of image \($0 + 1) does not verify" }
        case .mcuboot(let package):
            let mcuboot = try key.mcuboot()
            let checks = package.images.map { ($0.image.name, $0.image.verifySignature(with: mcuboot)) }
            signed = checks.contains { $0.1 != .unsigned }
            failing = checks.first { $0.1 != .valid && $0.1 != .unsigned }.map {
                // one image is the file itself, already named
                let whose = package.images.count == 1 ? "its" : "the image \($0.0)'s"
                return "\(whose) signature does not verify (\($0.1.reason))"
            }
        }
        if let failing {
            throw CommandFailure(
                errorClass: "signature_invalid",
                message: "\(file): \(failing) with \(key.path); nothing was sent: give the key the "
                    + "device's bootloader trusts, or a package signed with it",
                exitCode: .invalidPackage)
        }
        return signed
    }
}

extension MCUbootSignatureCheck {
    /// Why a signature did not verify, in a few words.
    var reason: String {
        switch self {
        case .valid: "valid"
        case .invalid: "invalid for this key"
        case .otherKey: "made for another key"
        case .otherAlgorithm(let kind): "\(kind), another algorithm than the key's"
        case .unsigned: "unsigned"
        }
    }
}
