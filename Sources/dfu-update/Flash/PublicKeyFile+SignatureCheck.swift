import FirmwareUpdate

extension PublicKeyFile {
    /// `flash --public-key`: before connecting, every signed image must verify with the key, or
    /// the update is refused as `signature_invalid` (exit 65, as `inspect` exits). Returns whether
    /// any image is signed at all (an unsigned package has nothing to verify).
    func checkSignatures(of package: any UpdatablePackage, file: String) throws -> Bool {
        let verdict: SignatureVerdict
        do { verdict = try package.verifySignatures(withKey: text) } catch { throw invalid(error) }
        if let failing = verdict.failing {
            throw CommandFailure(
                errorClass: "signature_invalid",
                message: "\(file): \(failing) with \(path); nothing was sent: give the key the "
                    + "device's bootloader trusts, or a package signed with it",
                exitCode: .invalidPackage)
        }
        return verdict.signed
    }
}
