import DFUSupport
import GATT
import NordicDFU

/// Sending the package's parts, each through the transfer its protocol defines.
extension UpdateRun {
    /// Sends part `index`, reconnecting after a lost link (Secure resumes, Legacy restarts the
    /// part) up to `options.retries` times. `track` learns every new connection.
    func sendPart(
        _ index: Int, on start: DFUConnection, track: (DFUConnection) -> Void
    ) async throws -> (PartOutcome, DFUConnection) {
        let part = package.images[index]
        session.tally.firmwareWrites.withLock { $0.startPart() }
        session.loggingPart(index + 1, of: package.images.count)
        defer { session.loggingPart(nil, of: package.images.count) }
        let meter = ProgressMeter(
            part: index + 1, totalParts: package.images.count, partBytes: part.firmware.count,
            linkTime: session.linkTime)
        var connection = start
        var attempt = 0
        while true {
            do {
                return (try await sendPartOnce(index, on: connection, meter: meter), connection)
            } catch let unanswered as UnansweredActivation {
                return try await confirmActivation(
                    of: index, after: unanswered.failure, on: connection, meter: meter, track: track)
            } catch let failure as DFUFailure where failure.isRetryable && attempt < options.retries {
                attempt += 1
                await session.beginReconnection(attempt, after: failure, dropping: connection.peripheral)
                connection = try await session.reconnect(
                    candidates: [connection.address]
                        + rebootCandidates(after: connection),
                    name: bootloaderName)
                track(connection)
                if !connection.mode.isBootloader {
                    // as on the first connection: a device that runs the package needs nothing more
                    if await versionCheck(connection, force: options.force).decision == .skip {
                        session.log(
                            .info, "\(connection.address) runs the package's version; nothing more to send")
                        await connection.peripheral.disconnect()
                        return (.confirmed, connection)
                    }
                    connection = try await enterBootloader(connection)
                    track(connection)
                }
            }
        }
    }

    /// Sends part `index` on `connection`; with `finishingHeldPart`, only finishes a part the
    /// device holds whole (`activatedBefore` when it holds none of it).
    func sendPartOnce(
        _ index: Int, on connection: DFUConnection, meter: ProgressMeter, finishingHeldPart: Bool = false
    ) async throws -> PartOutcome {
        let part = package.images[index]
        session.state(.starting)
        session.log(
            .info,
            "sending part \(index + 1) of \(package.images.count): \(part.kind), \(part.firmware.count) bytes"
        )
        // A refused system image is skipped when an application follows (the system image is
        // usually installed already); otherwise the refusal ends the update.
        let skipsRefusedPart = index == 0 && package.images.count > 1 && part.kind != .application
        let outcome: FirmwareTransferOutcome
        switch connection.mode {
        case .secureBootloader(let controlPoint, let packet):
            let channel = try await ControlPointChannel<SecureDFUResponse>.open(
                controlPoint, device: connection.address.description, session: session)
            defer { channel.close() }
            let size = await PacketStreamer.securePacketSize(for: packet, maximum: options.maximumPacketSize)
            var transfer = SecureFirmwareTransfer(
                session: session, runState: runState, part: part,
                controlPoint: SecureControlPoint(channel: channel),
                streamer: PacketStreamer(characteristic: packet, packetSize: size, session: session),
                meter: meter, finishesHeldPartOnly: finishingHeldPart)
            outcome = try await run(&transfer, on: controlPoint, abortOnRejection: !skipsRefusedPart)
        case .legacyBootloader(let controlPoint, let packet, let version):
            let channel = try await ControlPointChannel<LegacyDFUResponse>.open(
                controlPoint, device: connection.address.description, session: session)
            defer { channel.close() }
            let streamer = PacketStreamer(
                characteristic: packet, packetSize: PacketStreamer.legacyPacketSize, session: session)
            var transfer = LegacyFirmwareTransfer(
                session: session, part: part, controlPoint: LegacyControlPoint(channel: channel),
                streamer: streamer, version: version, meter: meter)
            outcome = try await run(&transfer, on: controlPoint, abortOnRejection: !skipsRefusedPart)
        case .secureApplication, .legacyApplication:
            throw session.failure(
                .invalidInternalState, "part \(index + 1) reached a device in application mode")
        }
        switch outcome {
        case .initPacketRejected(let failure):
            // The device still waits in its bootloader on the same connection.
            guard skipsRefusedPart else { throw failure }
            session.log(
                .info,
                "the system image was refused (\(failure.detail)); it is probably installed already, "
                    + "going on with the application")
            return .skippedToApplication
        case .notHeld:
            return .activatedBefore
        case .sent:
            session.tally.partsActivated = index + 1
        }
        session.state(.disconnecting)
        do {
            try await connection.peripheral.waitForDisconnection(timeout: options.responseTimeout)
        } catch {
            session.log(.info, "the device did not reset after the update; disconnecting")
            await connection.peripheral.disconnect()
        }
        return .sent
    }

    /// Runs `transfer`, timing it on link time; tells the bootloader to drop the transfer after
    /// a failure the transfer cannot resume from, and after a rejected init packet that ends
    /// the update.
    private func run(
        _ transfer: inout some FirmwareTransfer, on controlPoint: any GATTCharacteristic,
        abortOnRejection: Bool
    ) async throws -> FirmwareTransferOutcome {
        let started = session.linkTime.now()
        let outcome: FirmwareTransferOutcome
        do {
            outcome = try await transfer.run()
        } catch let unanswered as UnansweredActivation {
            // the device may have activated the part: an Abort now could only drop what it holds
            throw unanswered
        } catch {
            if transfer.abortsAfter(error as? DFUFailure) {
                await sendAbort(transfer.abortRequest, to: controlPoint)
            }
            throw error
        }
        switch outcome {
        case .sent:
            session.tally.transferDurations.append(transfer.finishedAt - started)
        case .initPacketRejected:
            if abortOnRejection { await sendAbort(transfer.abortRequest, to: controlPoint) }
        case .notHeld:
            break
        }
        return outcome
    }

    /// Best effort, also when the update task was cancelled: tells the bootloader to drop the
    /// transfer and reset, so that it can take the update again.
    private func sendAbort(_ request: [UInt8], to controlPoint: any GATTCharacteristic) async {
        let timeout = min(options.notificationTimeout, .seconds(2))
        await Task {
            try? await withRealTimeout(timeout, waitingFor: "abort") {
                try await controlPoint.write(request, timeout: timeout)
            }
        }.value
    }
}
