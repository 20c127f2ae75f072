import GATT
import MCUmgr

/// nRF Connect SDK Bare Metal (nordic-devices-current.md §5; docs/mcumgr.md, "Firmware loader"):
/// the application has no image group; reset into boot mode 1 it starts MCUboot's firmware
/// loader in slot 1, which advertises at the address with its lowest bit flipped, writes an
/// upload over the application in slot 0 and has no test, confirmation or erase. A reset of the
/// loader boots the new application.
extension SMPUpdateRun {
    /// Why this package cannot go through a firmware loader: it writes slot 0 only.
    func firmwareLoaderRefusal(_ bootloader: SMPBootloader?) -> String? {
        guard bootloader?.mode == .firmwareLoader, package.images.count > 1 else { return nil }
        return "MCUboot runs in firmware loader mode, whose loader takes one application image, but "
            + "the package holds \(package.images.count)"
    }

    /// The update through the loader, from a link to the application or to the loader itself;
    /// returns the link in use at the end (nil once disconnected).
    func updateThroughFirmwareLoader(_ start: SMPLink, whenReconnected: (SMPLink) -> Void) async throws
        -> SMPLink?
    {
        var link = start
        var state = try await loaderImageState(link)
        let applicationAddress =
            state == nil
            ? link.address : BluetoothAddress(link.address)?.lowestBitFlipped.description ?? link.address
        if state == nil {
            link = try await enterFirmwareLoader(link)
            whenReconnected(link)
            state = try await loaderImageState(link)
        }
        guard let state else {
            throw session.failure(
                .deviceNotSupported, "the firmware loader did not answer the image list",
                advice: "reset the device and retry")
        }
        let image = package.images[0]
        let installed = state.images.first { $0.slot == 0 }
        let check = versionCheck(of: image, installed: installed)
        session.emit(.version(check))
        guard check.decision != .skip else {
            session.log(.info, "the device's application is \(installed?.version ?? "?"): nothing to do")
            try await resetIntoApplication(link, at: applicationAddress, whenReconnected: whenReconnected)
            session.finish(.skipped)
            return nil
        }
        session.loggingPart(1, of: 1)
        link = try await upload(image, part: 1, of: 1, on: link) {
            link = $0
            whenReconnected($0)
        }
        session.loggingPart(nil, of: 1)
        session.state(.validating)
        try await resetIntoApplication(link, at: applicationAddress, whenReconnected: whenReconnected)
        session.tally.partsActivated = 1
        session.state(.completed)
        session.finish(.completed)
        return nil
    }

    /// The image list, or nil from an application without the image group.
    private func loaderImageState(_ link: SMPLink) async throws -> ImageStateResponse? {
        do {
            return try await imageState(link)
        } catch let failure as DFUFailure where failure.error == .remoteMcumgrNotSupported {
            return nil
        }
    }

    /// Resets the application into its firmware loader and connects to the loader.
    private func enterFirmwareLoader(_ link: SMPLink) async throws -> SMPLink {
        session.log(.info, "the application hands updates to its firmware loader: resetting into it")
        try await reset(link, with: .resetIntoBootMode(1))
        let loader = BluetoothAddress(link.address)?.lowestBitFlipped.description ?? link.address
        return try await session.reconnectSMP(
            at: loader, named: Self.firmwareLoaderName, within: options.smpResetTimeout)
    }

    /// Resets the loader, which boots the application, and finds the application at its address.
    private func resetIntoApplication(
        _ link: SMPLink, at address: String, whenReconnected: (SMPLink) -> Void
    ) async throws {
        try await reset(link, with: .reset(force: false))
        session.log(.info, "the firmware loader resets into the application")
        let back = try await session.reconnectSMP(at: address, within: options.smpResetTimeout)
        whenReconnected(back)
        session.state(.disconnecting)
        back.channel.close()
        await back.peripheral.disconnect()
    }

    /// Sends `request`, a reset, and waits for the link to drop; a link that drops before the
    /// answer is the reset too.
    private func reset(_ link: SMPLink, with request: SMPRequest) async throws {
        do {
            _ = try await link.channel.request(request, timeout: options.responseTimeout)
            try? await link.peripheral.waitForDisconnection(timeout: options.responseTimeout)
        } catch let failure as DFUFailure where failure.error == .deviceDisconnected {
            session.log(.info, "the link dropped before the reset's answer: taking it as the reset")
        }
        link.channel.close()
        await link.peripheral.disconnect()
    }

    /// The comparison with the application the loader lists in slot 0: the same hash is up to
    /// date; a newer version is skipped unless forced.
    private func versionCheck(of image: MCUbootPackage.Image, installed: ImageSlotState?) -> DFUVersionCheck {
        let packaged = image.image.header.version
        let newer = installed?.parsedVersion.map { $0 > packaged } ?? false
        let decision: DFUVersionCheck.Decision =
            if installed?.hash == image.image.hash || (newer && !options.force) {
                .skip
            } else {
                options.force && installed?.parsedVersion.map { $0 >= packaged } == true ? .forced : .update
            }
        return DFUVersionCheck(
            installed: installed?.version, package: packaged.imageListDescription, decision: decision)
    }

    /// The name the loader advertises unless the application set another
    /// (`CONFIG_APP_FIRMWARE_LOADER_BLE_DEVICE_NAME`).
    static let firmwareLoaderName = "nRF_BM_MCUmgr"
}
