import MCUmgr
import NordicDFU

/// An nRF5340 updated on both cores at once (nordic-devices-current.md §3; docs/mcumgr.md,
/// "Both cores of an nRF5340"): MCUboot copies the network core's image over through PCD and
/// keeps no copy to revert to, so such an update marks every image confirmed before the reset,
/// the network core first (NCSDK-34106: MCUboot skips it when the application is marked first),
/// and checks that each mark took.
extension SMPUpdateRun {
    /// Whether the package holds an image for the network core.
    var updatesNetworkCore: Bool { package.updatesNetworkCore }

    /// Why `activation` cannot be honoured for this package; nil when it can.
    var networkCoreRefusal: String? {
        guard updatesNetworkCore, options.smp.activation == .testOnly else { return nil }
        return "the package updates the network core, which cannot run an image on test (MCUboot keeps "
            + "no copy of it to revert to): use --activation test-and-confirm or confirm-only"
    }

    /// The images in the order they are marked: the highest image number first.
    func markingOrder(_ images: [MCUbootPackage.Image]) -> [MCUbootPackage.Image] {
        images.sorted { $0.imageIndex > $1.imageIndex }
    }

    /// Throws unless the device's answer to confirming `image` lists it permanent: an image left
    /// unmarked while another core's is replaced is how Device Manager users lost devices (iOS
    /// Device Manager issue 48).
    func checkMarkedPermanent(_ image: MCUbootPackage.Image, in answer: SMPResponse) throws {
        let listed = (try? ImageStateResponse(answer))?.images.first { $0.hash == image.image.hash }
        guard listed?.permanent != true else { return }
        throw session.failure(
            .remoteImageInvalidHash,
            "the device did not mark \(image.image.name) (image \(image.imageIndex)) to be installed "
                + "for good; nothing was reset, and it runs its images as before",
            advice: "its firmware may refuse to confirm an image that is not running "
                + "(CONFIG_MCUMGR_GRP_IMG_ALLOW_CONFIRM_NON_ACTIVE_IMAGE_SECONDARY)")
    }

    /// Throws unless the network core took `image`: once MCUboot has copied it, the image group
    /// no longer lists it (the network core's own flash is not listed at all).
    func checkNetworkCoreUpdated(_ image: MCUbootPackage.Image, in state: ImageStateResponse) throws {
        guard let left = state.images.first(where: { $0.hash == image.image.hash }) else { return }
        throw session.failure(
            .imageReverted,
            "after its reset the device still holds \(image.image.name) in image \(left.image)'s slot "
                + "\(left.slot): MCUboot did not copy it to the network core",
            advice: "update it again: dfu-update marks the network core's image first, as MCUboot needs")
    }
}
