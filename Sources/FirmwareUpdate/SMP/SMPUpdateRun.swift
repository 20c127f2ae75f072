import GATT
import MCUmgr
import NordicDFU

/// One SMP update (docs/mcumgr.md, "The update"): connect, read the image list and decide, upload
/// each image that needs it (resuming after a lost link), then activate them as
/// `DFUOptions.SMP.activation` says and check what the device runs.
struct SMPUpdateRun {
    let session: UpdateSession
    let package: MCUbootPackage

    var options: DFUOptions { session.options }

    func run() async {
        var link: SMPLink?
        do {
            session.state(.connecting)
            link = try await session.connectSMP(session.device)
            session.state(.starting)
            let bootloader = try await session.bootloader(link!)
            if let refusal = networkCoreRefusal ?? bootloader?.refusal(of: options.smp.activation)
                ?? firmwareLoaderRefusal(bootloader)
            {
                throw session.failure(
                    .deviceNotSupported, refusal,
                    advice: "nothing was sent: the device runs its image as before")
            }
            if bootloader?.mode == .firmwareLoader {
                try await updateThroughFirmwareLoader(link!) { link = $0 }
                return
            }
            let state = try await imageState(link!)
            try checkImageHashes(against: state)
            let package = try variants(for: state)
            let plan = SMPUpdatePlan(
                package: package, state: state, force: options.force,
                confirms: options.smp.activation == .testAndConfirm)
            if let refusal = directXIPRefusal(
                plan.images(.upload, of: package), state: state, bootloader: bootloader)
            {
                throw session.failure(
                    .deviceNotSupported, refusal,
                    advice: "nothing was sent: the device runs its image as before")
            }
            session.emit(.version(plan.versionCheck))
            if plan.isUpToDate {
                session.log(
                    .info,
                    "\(session.deviceName) already runs \(plan.versionCheck.installed ?? "?"); nothing to do")
                session.state(.disconnecting)
                await link!.peripheral.disconnect()
                session.finish(.skipped)
                return
            }
            if isOnePair(state) {
                link = try await updateOnePair(plan, of: package, bootloader: bootloader, on: link!) {
                    link = $0
                }
            } else {
                link = try await install(plan, of: package, bootloader: bootloader, on: link!) { link = $0 }
            }
            session.state(.disconnecting)
            await link?.peripheral.disconnect()
            session.state(.completed)
            session.finish(.completed)
        } catch {
            link?.channel.close()
            await session.end(with: error, disconnecting: link?.peripheral)
        }
    }

    /// Uploads and activates what `plan` says for `package`; its uploads are numbered after
    /// `partsBefore` sent earlier in the same update. Returns the link in use at the end.
    func install(
        _ plan: SMPUpdatePlan, of package: MCUbootPackage, bootloader: SMPBootloader?, partsBefore: Int = 0,
        on start: SMPLink, whenReconnected: (SMPLink) -> Void
    ) async throws -> SMPLink {
        var link = start
        let uploads = plan.images(.upload, of: package)
        let parts = partsBefore + uploads.count
        for (index, image) in uploads.enumerated() {
            session.loggingPart(partsBefore + index + 1, of: parts)
            link = try await upload(image, part: partsBefore + index + 1, of: parts, on: link) {
                link = $0
                whenReconnected($0)
            }
        }
        session.loggingPart(nil, of: parts)
        session.state(.validating)
        let activating = uploads + plan.images(.activate, of: package)
        if options.smp.eraseSettings, !activating.isEmpty { try await eraseSettings(on: link) }
        return try await activate(
            activating, confirming: plan.images(.confirm, of: package), bootloader: bootloader, on: link
        ) {
            link = $0
            whenReconnected($0)
        }
    }

    /// The device's image list.
    func imageState(_ link: SMPLink) async throws -> ImageStateResponse {
        let answer = try await link.channel.request(.imageState, timeout: options.notificationTimeout)
        do throws(SMPResponseError) {
            return try ImageStateResponse(answer)
        } catch {
            throw session.smpFailure(error, answering: SMPRequest.imageState.name)
        }
    }

    /// Uploads one image; after a lost link, connects again and resumes where the device is.
    func upload(
        _ image: MCUbootPackage.Image, part: Int, of parts: Int, on start: SMPLink,
        whenReconnected: (SMPLink) -> Void
    ) async throws -> SMPLink {
        session.tally.firmwareWrites.withLock { $0.startPart() }
        let meter = ProgressMeter(
            part: part, totalParts: parts, partBytes: image.image.bytes.count, linkTime: session.linkTime)
        var link = start
        var attempt = 0
        while true {
            session.state(.uploading)
            let began = session.linkTime.now()
            do {
                let upload = SMPImageUpload(
                    channel: link.channel, session: session, image: image.image,
                    imageNumber: image.imageIndex,
                    parameters: link.parameters, meter: meter)
                if try await upload.run() == false {
                    throw session.failure(
                        .imageHashMismatch,
                        "the device's SHA-256 of \(image.image.name) differs from the file's")
                }
                session.tally.transferDurations.append(session.linkTime.now() - began)
                return link
            } catch let failure as DFUFailure where failure.isRetryable && attempt < options.retries {
                attempt += 1
                session.tally.retries += 1
                session.log(
                    .info, "\(failure.detail); reconnecting to resume (\(attempt) of \(options.retries))")
                await link.peripheral.disconnect()
                session.state(.connecting)
                link = try await session.connectSMP(.address(link.address))
                whenReconnected(link)
            }
        }
    }
}
