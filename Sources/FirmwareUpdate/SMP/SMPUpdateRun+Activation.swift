import GATT
import MCUmgr
import NordicDFU

extension SMPUpdateRun {
    /// Activates what the upload left in the device's slots, as `DFUOptions.SMP.activation` says:
    /// marks each image (for test, or confirmed at once), resets the device, finds it again,
    /// checks that it runs every image (a device back on its old image had it reverted by
    /// MCUboot), then confirms the images that run on test. `confirming` run on test already and
    /// need the confirmation only; `bootloader` words a failed check. Returns the link in use at
    /// the end.
    func activate(
        _ marking: [MCUbootPackage.Image], confirming: [MCUbootPackage.Image], bootloader: SMPBootloader?,
        on start: SMPLink, whenReconnected: (SMPLink) -> Void
    ) async throws -> SMPLink {
        if let mode = bootloader?.mode, mode.bootsHigherVersion, !marking.isEmpty {
            return try await activateInPlace(marking, on: start, whenReconnected: whenReconnected)
        }
        var link = start
        let activation = options.smp.activation
        var toConfirm = confirming
        if !marking.isEmpty {
            let permanent = activation == .confirmOnly || updatesNetworkCore
            if permanent, activation != .confirmOnly {
                session.log(
                    .info,
                    "the network core cannot run an image on test: every image is marked confirmed "
                        + "before the reset, the network core's first")
            }
            for image in markingOrder(marking) {
                let request: SMPRequest =
                    permanent ? .imageConfirm(hash: image.image.hash) : .imageTest(hash: image.image.hash)
                let answer = try await link.channel.request(request, timeout: options.responseTimeout)
                if updatesNetworkCore { try checkMarkedPermanent(image, in: answer) }
            }
            if activation == .noReset {
                session.tally.partsActivated = marking.count
                session.log(
                    .info,
                    "marked \(permanent ? "to be installed" : "for test"): the device runs the new image "
                        + "after its next reset")
                return link
            }
            link = try await reset(link, whenReconnected: whenReconnected)
            if activation == .testAndConfirm, !permanent { toConfirm += marking }
        }
        link = try await checkAndConfirm(
            checking: marking, confirming: toConfirm, bootloader: bootloader, on: link,
            whenReconnected: whenReconnected)
        // A retry after a failure before this point is safe: its plan reads what the device runs
        // and holds, and confirms or activates only what is left.
        session.tally.partsActivated = marking.count + confirming.count
        if activation == .testOnly {
            session.log(
                .info,
                "the new image runs on test: MCUboot reverts it at the next reset unless it is confirmed")
        }
        return link
    }

    /// Checks that the device runs each of `checking`, then confirms `confirming`. Both may be
    /// asked again: a link lost meanwhile is found again (within `retries`) and the check and the
    /// confirmations start over, as the device keeps what it runs and confirming twice is harmless.
    func checkAndConfirm(
        checking: [MCUbootPackage.Image], confirming: [MCUbootPackage.Image], bootloader: SMPBootloader?,
        on start: SMPLink, whenReconnected: (SMPLink) -> Void
    ) async throws -> SMPLink {
        try await repeatingOnANewLink(from: start, whenReconnected: whenReconnected) { link in
            if !checking.isEmpty {
                try checkRunning(checking, in: try await imageState(link), bootloader: bootloader)
            }
            // Each of them runs (checked, or found running on test): the application is
            // confirmed without a hash, which only ever confirms the running image; one
            // with the hash would, after an unseen revert, make the old slot permanent
            // (nordic-devices-current.md §2.5). Other image numbers need their hash.
            for image in confirming {
                _ = try await link.channel.request(
                    .imageConfirm(hash: image.imageIndex == 0 ? nil : image.image.hash),
                    timeout: options.responseTimeout)
            }
        }
    }

    /// Runs `step` on `start`; when it fails in a way worth retrying (a lost link), connects
    /// again (within `retries`) and runs it again from the beginning. Returns the link in use.
    func repeatingOnANewLink(
        from start: SMPLink, whenReconnected: (SMPLink) -> Void, _ step: (SMPLink) async throws -> Void
    ) async throws -> SMPLink {
        var link = start
        var attempt = 0
        while true {
            do {
                try await step(link)
                return link
            } catch let failure as DFUFailure where failure.isRetryable && attempt < options.retries {
                attempt += 1
                link.channel.close()
                await session.beginReconnection(attempt, after: failure, dropping: link.peripheral)
                link = try await session.connectSMP(.address(link.address))
                whenReconnected(link)
                session.state(.validating)
            }
        }
    }

    /// Resets the device and connects again once it is back (MCUboot swaps the slots first). A
    /// link that drops before the reset's answer arrives is the reset too.
    func reset(_ link: SMPLink, whenReconnected: (SMPLink) -> Void) async throws -> SMPLink {
        try await send(.reset(force: false), on: link)
        session.log(.info, "the device resets to boot the new image")
        let back = try await session.reconnectSMP(at: link.address, within: options.smp.resetTimeout)
        whenReconnected(back)
        return back
    }

    /// Sends `reset` (a reset request), waits for the link to drop and closes it; a link that
    /// drops before the answer is the reset too.
    func send(_ reset: SMPRequest, on link: SMPLink) async throws {
        do {
            _ = try await link.channel.request(reset, timeout: options.responseTimeout)
            try? await link.peripheral.waitForDisconnection(timeout: options.responseTimeout)
        } catch let failure as DFUFailure where failure.error == .deviceDisconnected {
            session.log(.info, "the link dropped before the reset's answer: taking it as the reset")
        }
        link.channel.close()
        await link.peripheral.disconnect()
    }

    /// Throws `imageReverted` unless the device runs each of `images`.
    private func checkRunning(
        _ images: [MCUbootPackage.Image], in state: ImageStateResponse, bootloader: SMPBootloader?
    ) throws {
        for image in images {
            if image.core == .network {
                try checkNetworkCoreUpdated(image, in: state)
                continue
            }
            let running = SMPUpdatePlan.running(image.imageIndex, in: state)
            guard running?.hash != image.image.hash else { continue }
            let installed = running.map { "\($0.version)" } ?? "no image"
            let stillPending = state.images.contains { $0.hash == image.image.hash && $0.pending }
            if stillPending {
                throw session.failure(
                    .imageReverted,
                    "the device came back still running \(installed), the new image still pending: it did "
                        + "not reset, or its bootloader did not swap")
            }
            let found =
                "after its reset the device runs \(installed) for image \(image.imageIndex), not "
                + "\(image.image.header.version.imageListDescription): "
            guard let refused = bootloader?.whyNotInstalled else {
                throw session.failure(.imageReverted, found + "MCUboot reverted the new image")
            }
            throw session.failure(
                .imageReverted, found + refused,
                advice: "check that the image is signed with the device's key and newer than the one it runs")
        }
    }
}
