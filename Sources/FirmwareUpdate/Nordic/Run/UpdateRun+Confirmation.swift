import GATT

/// After a part's activating request went unanswered (`UnansweredActivation`): the device may
/// run the part already, so the engine looks at it before anything is sent again, and sends
/// nothing it may have activated (docs/engine.md, "A lost last answer").
extension UpdateRun {
    /// Finds the device after the lost answer to part `index`'s last Execute and tells what it
    /// did: finishes the part when the device still holds it whole in its bootloader (the
    /// Execute never arrived); goes on with the next part when it holds none of it; for the
    /// last part, confirms that the application runs the package's version. Anything else is
    /// `activationNotConfirmed`, and nothing is sent again.
    func confirmActivation(
        of index: Int, after lost: DFUFailure, on connection: DFUConnection, meter: ProgressMeter,
        track: (DFUConnection) -> Void
    ) async throws -> (PartOutcome, DFUConnection) {
        session.log(
            .info,
            "no answer to the last Execute of part \(index + 1) (\(lost.detail)): the device may have "
                + "activated it; looking at it before anything is sent again")
        // the device took the activating request, or may have: a retry of the whole update
        // starts after this part (DFUResult.partsActivated)
        session.tally.partsActivated = index + 1
        await connection.peripheral.disconnect()
        session.tally.retries += 1
        session.state(.connecting)
        let isLastPart = index == package.images.count - 1
        do {
            let found = try await session.reconnect(
                candidates: confirmationCandidates(after: connection), name: nil,
                activatedBytes: package.images[index].firmware.count)
            track(found)
            if found.mode.isBootloader {
                let outcome = try await sendPartOnce(index, on: found, meter: meter, finishingHeldPart: true)
                guard outcome == .activatedBefore else { return (outcome, found) }
                guard !isLastPart else {
                    await found.peripheral.disconnect()
                    throw notConfirmed(
                        "it came back in its bootloader at \(found.address), holding none of the image")
                }
                session.log(.info, "the device activated part \(index + 1) before its answer was lost")
                return (.activatedBefore, found)
            }
            guard isLastPart else { return (.activatedBefore, found) }
            let installed = await installedVersion(found)
            session.state(.disconnecting)
            await found.peripheral.disconnect()
            try confirm(installed, at: found.address)
            return (.confirmed, found)
        } catch let failure as DFUFailure
            where !failure.error.isRemote && failure.error != .activationNotConfirmed
        {
            // not found, no DFU service, a link lost again: nothing said what the device runs
            throw notConfirmed(failure.detail)
        } catch let unanswered as UnansweredActivation {
            throw notConfirmed("the last Execute went unanswered again (\(unanswered.failure.detail))")
        }
    }

    /// Completes when the application at `address` reports the package's version.
    private func confirm(_ installed: String?, at address: BluetoothAddress) throws {
        guard let expected = packageVersion else {
            throw notConfirmed("the package states no application version to compare with")
        }
        guard let installed else {
            throw notConfirmed("its application at \(address) does not report its version")
        }
        guard DFUFirmwareVersion(installed) == expected else {
            throw notConfirmed(
                "its application at \(address) runs \(installed), not the package's \(expected)")
        }
        session.log(
            .info, "the application at \(address) runs \(installed), the package's version: confirmed")
    }

    /// Where the device may be after it activated a part: the application's address (one below
    /// the bootloader's when the update began in a bootloader that advertises at address + 1),
    /// then where its bootloader was.
    private func confirmationCandidates(after connection: DFUConnection) -> [BluetoothAddress] {
        guard let application = runState.whereabouts.applicationAddress else {
            return rebootCandidates(after: connection)
        }
        let below = runState.whereabouts.startedInBootloader ? [application.decremented] : []
        return [application] + below + rebootCandidates(after: connection)
    }

    private func notConfirmed(_ why: String) -> DFUFailure {
        session.failure(
            .activationNotConfirmed,
            "the device took the whole image, but its answer was lost; not confirmed: \(why)")
    }
}
