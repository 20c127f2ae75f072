import MCUmgr

extension SMPUpdateRun {
    /// Erases the application's settings before the new images boot (`DFUOptions.SMP.eraseSettings`),
    /// where Device Manager does it: after the uploads, before test, confirm and reset. Device
    /// Manager goes on when the device lacks the command or fails to erase; here the update stops
    /// instead, before anything is activated, since the user asked for the erase (the device
    /// keeps running its old image and can take the update again). The answer comes once the
    /// partition is erased: bounded by the response timeout.
    func eraseSettings(on link: SMPLink) async throws {
        guard options.smp.activation != .noReset else {
            session.log(.warning, "not erasing the settings: no reset follows (--activation no-reset)")
            return
        }
        session.log(.info, "erasing the application's settings (its storage partition, bonds included)")
        do {
            _ = try await link.channel.request(.eraseStorage, timeout: options.responseTimeout)
        } catch let failure as DFUFailure
            where failure.error.isRemote || failure.error == .unsupportedResponse
        {
            throw session.failure(
                failure.error,
                "it could not erase its settings (\(failure.detail)); nothing was activated",
                advice: failure.error == .remoteMcumgrNotSupported
                    ? "its firmware lacks Zephyr's basic group (CONFIG_MCUMGR_GRP_ZBASIC): update it without --erase-settings"
                    : "retry; the device runs its old image, and the uploaded one waits in its slot")
        }
        session.log(.info, "the settings are erased")
    }
}
