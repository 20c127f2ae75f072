import MCUmgr

extension SMPUpdateRun {
    /// Refuses, before anything is sent, a package image hashed with another algorithm than the
    /// images the device lists: img_mgmt lists and tests images only by the hash TLV its MCUboot
    /// checks (SHA-512 with `CONFIG_MCUBOOT_BOOTLOADER_USES_SHA512`, as on nRF54L; else SHA-256),
    /// so such an image would be uploaded, then neither listed nor booted (docs/mcumgr.md).
    func checkImageHashes(against state: ImageStateResponse) throws {
        guard let listed = state.images.first,
            let expected = MCUbootHashAlgorithm(byteCount: listed.hash.count),
            let image = package.images.first(where: { $0.image.hashAlgorithm != expected })
        else { return }
        throw session.failure(
            .remoteImageInvalidHash,
            "the device lists \(expected.rawValue) image hashes, but \(image.image.name) carries a "
                + "\(image.image.hashAlgorithm.rawValue) hash, which it would neither list nor boot; sign it as "
                + "the device's MCUboot expects (imgtool --sha \(expected.byteCount * 8)); nothing was sent"
        )
    }
}
