import GATT
import MCUmgr
import NordicDFU

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
    /// it ends disconnected, with the result given.
    func updateThroughFirmwareLoader(_ start: SMPLink, whenReconnected: (SMPLink) -> Void) async throws {
        var link = start
        var state = try await loaderImageState(link)
        // the application and its loader: each at the other's address with the lowest bit flipped
        let otherAddress = link.address.lowestBitFlipped
        let applicationAddress = state == nil ? link.address : otherAddress
        if state == nil {
            link = try await enterFirmwareLoader(link, at: otherAddress)
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
            return
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
    }

    /// The image list, or nil from an application without the image group.
    private func loaderImageState(_ link: SMPLink) async throws -> ImageStateResponse? {
        do {
            return try await imageState(link)
        } catch let failure as DFUFailure where failure.error == .remoteMcumgrNotSupported {
            return nil
        }
    }

    /// Resets the application into its firmware loader and connects to the loader at `loader`
    /// (or by its name).
    private func enterFirmwareLoader(_ link: SMPLink, at loader: BluetoothAddress) async throws -> SMPLink {
        session.log(.info, "the application hands updates to its firmware loader: resetting into it")
        try await send(.resetIntoBootMode(1), on: link)
        return try await session.reconnectSMP(
            at: loader, named: Self.firmwareLoaderName, within: options.smp.resetTimeout)
    }

    /// Resets the loader, which boots the application, and finds the application at its address.
    private func resetIntoApplication(
        _ link: SMPLink, at address: BluetoothAddress, whenReconnected: (SMPLink) -> Void
    ) async throws {
        try await send(.reset(force: false), on: link)
        session.log(.info, "the firmware loader resets into the application")
        let back = try await session.reconnectSMP(at: address, within: options.smp.resetTimeout)
        whenReconnected(back)
        session.state(.disconnecting)
        back.channel.close()
        await back.peripheral.disconnect()
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
