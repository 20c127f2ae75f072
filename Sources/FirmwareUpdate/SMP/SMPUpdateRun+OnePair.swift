import MCUmgr

/// An nRF5340 with one image pair (nRF Connect SDK's default setup; nordic-devices-current.md
/// §3.1, §3.2, §7.6; docs/mcumgr.md, "One image pair"): both cores' images go through image 0's
/// secondary slot, one update cycle each. MCUboot tells a network core image by its reset vector
/// and hands it to that core through PCD, keeping no copy: it is confirmed, never tested, and the
/// application keeps running. The application follows in a second cycle, as the device's mode
/// updates it.
extension SMPUpdateRun {
    /// Whether the device has one image pair for the package's network core image: it lists no
    /// image numbers, which Zephyr writes only with more than one updatable image (an inference:
    /// the list is the only sign, the device names neither setup).
    func isOnePair(_ state: ImageStateResponse) -> Bool {
        updatesNetworkCore && !state.images.isEmpty && !state.numbersImages
    }

    /// Runs the network core's cycle when `plan` sends its image, then the application's.
    func updateOnePair(
        _ plan: SMPUpdatePlan, of package: MCUbootPackage, bootloader: SMPBootloader?, on start: SMPLink,
        whenReconnected: (SMPLink) -> Void
    ) async throws -> SMPLink {
        var link = start
        let sending = (plan.images(.upload, of: package) + plan.images(.activate, of: package))
            .filter { $0.core == .network }
        let application = MCUbootPackage(
            name: package.name, images: package.images.filter { $0.core != .network })
        session.log(
            .info,
            "one image pair for both cores (the device lists no image numbers): "
                + (sending.isEmpty ? "" : "the network core's image first, through image 0's slot, ")
                + (application.images.isEmpty
                    ? "no application image" : "the application in a cycle of its own"))
        if !sending.isEmpty, !application.images.isEmpty, options.smp.activation == .noReset {
            throw session.failure(
                .deviceNotSupported,
                "with one image pair the network core's image must be installed (a reset) before the "
                    + "application's can use the same slot: --activation no-reset cannot do both",
                advice: "nothing was sent: update without --activation no-reset")
        }
        // parts as people count them: every upload of both cycles, the network core's first
        let uploads = plan.images(.upload, of: package)
        var sent = 0
        for network in sending {
            let uploading = uploads.contains { $0.image.hash == network.image.hash }
            if uploading { sent += 1 }
            link = try await updateNetworkCore(
                .init(imageIndex: 0, core: .network, image: network.image),
                uploading: uploading ? (sent, uploads.count) : nil, on: link
            ) {
                link = $0
                whenReconnected($0)
            }
        }
        guard !application.images.isEmpty else { return link }
        let second = SMPUpdateRun(session: session, package: application)
        let state = try await second.imageState(link)
        let appPlan = SMPUpdatePlan(
            package: application, state: state, force: options.force,
            confirms: options.smp.activation == .testAndConfirm)
        if appPlan.isUpToDate {
            session.log(.info, "the application is up to date")
            return link
        }
        let activated = session.tally.partsActivated
        link = try await second.install(
            appPlan, of: application, bootloader: bootloader, partsBefore: sent, on: link
        ) {
            link = $0
            whenReconnected($0)
        }
        session.tally.partsActivated += activated
        return link
    }

    /// One cycle for the network core: upload into image 0's secondary slot, confirm, reset, and
    /// check that MCUboot copied it (the application unchanged, the image gone or left unmarked).
    /// `uploading` numbers its upload among the update's; nil when a slot holds it already.
    private func updateNetworkCore(
        _ image: MCUbootPackage.Image, uploading: (part: Int, of: Int)?, on start: SMPLink,
        whenReconnected: (SMPLink) -> Void
    ) async throws -> SMPLink {
        var link = start
        let before = SMPUpdatePlan.running(0, in: try await imageState(link))
        if let uploading {
            session.loggingPart(uploading.part, of: uploading.of)
            link = try await upload(image, part: uploading.part, of: uploading.of, on: link) {
                link = $0
                whenReconnected($0)
            }
            session.loggingPart(nil, of: uploading.of)
        }
        session.state(.validating)
        if options.smp.eraseSettings, package.images.allSatisfy({ $0.core == .network }) {
            try await eraseSettings(on: link)
        }
        let answer = try await link.channel.request(
            .imageConfirm(hash: image.image.hash), timeout: options.responseTimeout)
        try checkMarkedPermanent(image, in: answer)
        if options.smp.activation == .noReset {
            session.tally.partsActivated += 1
            session.log(.info, "marked to be installed: the network core takes it at the device's next reset")
            return link
        }
        link = try await reset(link) {
            link = $0
            whenReconnected($0)
        }
        link = try await checkHandedOver(
            image, applicationBefore: before, on: link, whenReconnected: whenReconnected)
        session.tally.partsActivated += 1
        return link
    }

    /// Reads the list after the reset and checks it; a link lost meanwhile is connected again
    /// (within `retries`) and the list read again, as the device keeps what it holds.
    private func checkHandedOver(
        _ image: MCUbootPackage.Image, applicationBefore: ImageSlotState?, on start: SMPLink,
        whenReconnected: (SMPLink) -> Void
    ) async throws -> SMPLink {
        try await repeatingOnANewLink(from: start, whenReconnected: whenReconnected) { link in
            try checkHandedOver(image, applicationBefore: applicationBefore, in: try await imageState(link))
        }
    }

    /// Throws unless MCUboot handed `image` to the network core: the application runs as before,
    /// and image 0's secondary slot no longer holds the image marked (nRF Connect SDK 3.4.1 and
    /// later erase it; older releases in a swap mode erase only its trailer, leaving no flags).
    private func checkHandedOver(
        _ image: MCUbootPackage.Image, applicationBefore: ImageSlotState?, in state: ImageStateResponse
    ) throws {
        let running = SMPUpdatePlan.running(0, in: state)
        if let applicationBefore, running?.hash != applicationBefore.hash {
            throw session.failure(
                .imageReverted,
                "after its reset the device runs \(running.map { "\($0.version)" } ?? "no image") instead "
                    + "of its application \(applicationBefore.version): MCUboot did not take "
                    + "\(image.image.name) for the network core's image",
                advice: "check that the package is built for this device's nRF5340 setup (one image pair)")
        }
        guard let left = state.images.first(where: { $0.hash == image.image.hash }) else { return }
        guard left.pending || left.permanent || left.confirmed || left.active else {
            session.log(
                .info,
                "the network core took \(image.image.name); its copy stays unmarked in slot \(left.slot)")
            return
        }
        throw session.failure(
            .imageReverted,
            "after its reset the device still holds \(image.image.name) marked in image 0's slot "
                + "\(left.slot), its application unchanged: MCUboot did not copy it to the network core",
            advice:
                "update it again; if it stays, the device's MCUboot may lack the network core update (PCD)")
    }
}
