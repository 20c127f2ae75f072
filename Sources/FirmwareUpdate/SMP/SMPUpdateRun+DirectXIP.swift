import MCUmgr
import NordicDFU

/// Direct-XIP (nordic-devices-current.md §2.3; docs/mcumgr.md, "Direct-XIP"): MCUboot runs an
/// image from the slot it is linked for, so a package holds one variant per slot and the device
/// takes the one for the slot it does not run from. Without revert it boots the valid image of
/// the higher version at its next reset, needing no test or confirmation. RAM load (6) selects
/// the same way and copies the image into RAM, from either slot (its images are linked for RAM,
/// so there are no slot variants): it is updated as direct-XIP without revert is.
extension SMPUpdateRun {
    /// The package with, of each image's variants linked for one slot, the one the device runs
    /// (so that it is found up to date), else the one for the slot the device does not run that
    /// image from; images without variants stay as they are.
    func variants(for state: ImageStateResponse) throws -> MCUbootPackage {
        var chosen: [MCUbootPackage.Image] = []
        for image in package.images {
            guard image.slot != nil else {
                chosen.append(image)
                continue
            }
            guard !chosen.contains(where: { $0.imageIndex == image.imageIndex }) else { continue }
            let runningSlot = SMPUpdatePlan.running(image.imageIndex, in: state)
            // the variant it runs already: the plan finds it up to date
            if let same = package.images.first(where: {
                $0.imageIndex == image.imageIndex && $0.image.hash == runningSlot?.hash
            }) {
                chosen.append(same)
                continue
            }
            let running = Int(runningSlot?.slot ?? 0)
            let target = 2 * image.imageIndex + 1 - running
            guard
                let variant = package.images.first(where: {
                    $0.imageIndex == image.imageIndex && $0.slot == target
                })
            else {
                throw session.failure(
                    .deviceNotSupported,
                    "image \(image.imageIndex) runs from slot \(2 * image.imageIndex + running), but the package "
                        + "holds no variant linked for slot \(target), the one it can take; nothing was sent",
                    advice:
                        "build the package with both slot variants (SB_CONFIG_MCUBOOT_BUILD_DIRECT_XIP_VARIANT)"
                )
            }
            session.log(
                .info, "image \(image.imageIndex): sending \(variant.image.name), linked for slot \(target)")
            chosen.append(variant)
        }
        return MCUbootPackage(name: package.name, images: chosen)
    }

    /// Why a direct-XIP device without revert would never boot `images`: it boots the higher
    /// version, so an image not newer than the one it runs stays unbooted, forced or not.
    func directXIPRefusal(
        _ images: [MCUbootPackage.Image], state: ImageStateResponse, bootloader: SMPBootloader?
    ) -> String? {
        guard let mode = bootloader?.mode, mode.bootsHigherVersion else { return nil }
        for image in images {
            guard let running = SMPUpdatePlan.running(image.imageIndex, in: state),
                let version = running.parsedVersion, image.image.header.version <= version
            else { continue }
            return "MCUboot runs in \(mode) mode, which boots the image of the higher version: "
                + "\(image.image.header.version.imageListDescription) is not newer than the running "
                + "\(running.version), so it would never boot (--force cannot change that)"
        }
        return nil
    }

    /// Activates on a direct-XIP device without revert: nothing to mark (a test is refused, a
    /// confirmation changes nothing); a reset boots the new image, which the check then finds
    /// running. With `no-reset` it boots at the device's next reset.
    func activateInPlace(
        _ images: [MCUbootPackage.Image], on start: SMPLink, whenReconnected: (SMPLink) -> Void
    ) async throws -> SMPLink {
        session.tally.partsActivated = images.count
        guard options.smp.activation != .noReset else {
            session.log(
                .info, "direct-XIP: the device boots the new image, the higher version, at its next reset")
            return start
        }
        let link = try await reset(start, whenReconnected: whenReconnected)
        return try await checkAndConfirm(
            checking: images, confirming: [], bootloader: nil, on: link, whenReconnected: whenReconnected)
    }
}

extension MCUbootMode {
    /// Whether MCUboot boots the valid image of the higher version whatever the trailers say:
    /// direct-XIP without revert, and RAM load (MCUboot `loader.c`, `boot_load_and_validate_images`;
    /// Zephyr `modules/Kconfig.mcuboot`; nordic-devices-current.md §2.3).
    var bootsHigherVersion: Bool { self == .directXIP || self == .ramLoad }
}
