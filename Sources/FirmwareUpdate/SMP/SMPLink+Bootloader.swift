import MCUmgr

extension UpdateSession {
    /// Asks the device for its bootloader's name and, for MCUboot, its mode, as Device Manager
    /// does, once per update. A device without the command, or one that answers a query with an
    /// error, tells nothing (nil, or a nil mode); a lost answer is the link's failure.
    func bootloader(_ link: SMPLink) async throws -> SMPBootloader? {
        let nameAnswer = try await answer(to: .bootloaderInfo(query: nil), on: link)
        let named = SMPBootloader(nameAnswer: nameAnswer, modeAnswer: nil)
        guard named?.name == "MCUboot" else { return named }
        let modeAnswer = try await answer(to: .bootloaderInfo(query: BootloaderInfo.modeQuery), on: link)
        let bootloader = SMPBootloader(nameAnswer: nameAnswer, modeAnswer: modeAnswer)
        log(.info, "bootloader " + (bootloader?.summary ?? "not told"))
        return bootloader
    }

    /// The device's answer to `request`; nil when it answers with an error (it does not know
    /// the command or the query).
    private func answer(to request: SMPRequest, on link: SMPLink) async throws -> SMPResponse? {
        do {
            return try await link.channel.request(request, timeout: options.notificationTimeout)
        } catch let failure as DFUFailure
            where failure.error.isRemote || failure.error == .unsupportedResponse
        {
            return nil
        }
    }
}
