import GATT

/// Updates one device: connects, compares versions, switches it into its bootloader when it
/// runs an application, sends every part of the package (the device reboots between parts) and
/// reports what happens as events.
///
/// ```swift
/// let updater = DFUUpdater(package: package, central: central, device: .address("C0:DE:00:00:00:10"))
/// let (controller, events) = updater.start()
/// for await event in events { … }   // the last event is `.result`
/// ```
public struct DFUUpdater: Sendable {
    public let package: DFUPackage
    public let central: any GATTCentral
    public let device: DeviceIdentifier
    public let options: DFUOptions

    /// An updater that sends `package` to `device`, found through `central`.
    public init(
        package: DFUPackage, central: any GATTCentral, device: DeviceIdentifier, options: DFUOptions = .init()
    ) {
        self.package = package
        self.central = central
        self.device = device
        self.options = options
    }

    /// Starts the update in a task of its own. The controller pauses, resumes or aborts it; the
    /// stream delivers its events and finishes after `.result`.
    ///
    /// `controller` may be made beforehand, so that `observer` can use it. `observer`, when given,
    /// sees every event first, synchronously in the update's own task as
    /// it happens (the stream may lag behind): it must return quickly, and a controller call made
    /// in it takes effect at the update's next step.
    public func start(
        controller: DFUController = DFUController(),
        observer: @escaping @Sendable (DFUEvent) -> Void = { _ in }
    ) -> (controller: DFUController, events: AsyncStream<DFUEvent>) {
        let (events, continuation) = AsyncStream.makeStream(of: DFUEvent.self, bufferingPolicy: .unbounded)
        let session = UpdateSession(
            central: central, device: device, options: options, controller: controller, events: continuation,
            observer: observer)
        let package = package
        let task = Task { await UpdateRun(session: session, package: package).run() }
        controller.attach(task)
        return (controller, events)
    }

    /// Runs the update to its end and returns the result, handing every event to `onEvent`.
    public func run(onEvent: @Sendable (DFUEvent) -> Void = { _ in }) async -> DFUResult {
        let (controller, events) = start()
        return await withTaskCancellationHandler {
            var result: DFUResult?
            for await event in events {
                onEvent(event)
                if case .result(let final) = event { result = final }
            }
            return result ?? DFUResult(outcome: .aborted, bytesSent: 0, duration: .zero, retries: 0)
        } onCancel: {
            controller.abort()
        }
    }
}

/// One run of the state machine (docs/engine.md).
private struct UpdateRun {
    let session: UpdateSession
    let package: DFUPackage

    private var options: DFUOptions { session.options }

    private enum PartOutcome {
        case sent
        /// The system part's init packet was refused; the device still waits in its bootloader
        /// on the same connection, ready for the application part.
        case skippedToApplication
    }

    func run() async {
        var connection: DFUConnection?
        do {
            session.state(.connecting)
            var current = try await session.connect(session.device)
            connection = current
            session.applicationAddress = BluetoothAddress(current.address)
            let check = await versionCheck(current)
            session.emit(.version(check))
            if check.decision == .skip {
                session.log(
                    .info, "\(session.deviceName) already runs \(check.installed ?? "?"); nothing to do")
                session.state(.disconnecting)
                await current.peripheral.disconnect()
                session.finish(.skipped)
                return
            }
            guard current.mode.format == package.format else {
                throw session.failure(
                    .deviceNotSupported,
                    "the package is for \(package.format) DFU but the device offers \(current.mode.format) DFU"
                )
            }
            var index = 0
            var reuseConnection = true
            while index < package.images.count {
                if !reuseConnection {
                    session.state(.connecting)
                    current = try await session.reconnect(
                        candidates: rebootCandidates(after: current), name: bootloaderName)
                    connection = current
                }
                if !current.mode.isBootloader {
                    current = try await enterBootloader(current)
                    connection = current
                }
                let (outcome, last) = try await sendPart(index, on: current) { connection = $0 }
                current = last
                switch outcome {
                case .sent: reuseConnection = false
                case .skippedToApplication: reuseConnection = true
                }
                index += 1
            }
            session.state(.completed)
            session.finish(.completed)
        } catch {
            await end(with: error, connection: connection)
        }
    }

    private var bootloaderName: String? {
        if case .name(let name) = options.bootloaderLocation { return name }
        return session.bootloaderName
    }

    // MARK: Version

    private func versionCheck(_ connection: DFUConnection) async -> DFUVersionCheck {
        let packaged = package.applicationVersion.flatMap {
            $0 == .max ? nil : DFUFirmwareVersion(number: $0)
        }
        let packageVersion = options.packageVersion.flatMap(DFUFirmwareVersion.init) ?? packaged
        var installed: String?
        if !connection.mode.isBootloader {
            let characteristic = connection.services.lazy.compactMap {
                $0.characteristic(self.options.versionCharacteristic)
            }.first
            if let characteristic {
                do {
                    let bytes = try await characteristic.read(timeout: options.notificationTimeout)
                    installed = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: "\0 ")
                } catch {
                    session.log(.warning, "could not read the firmware version: \(error)")
                }
            } else {
                session.log(.info, "the device does not report its firmware version")
            }
        }
        return DFUVersionCheck(installed: installed, package: packageVersion, force: options.force)
    }

    // MARK: Bootloader

    private func enterBootloader(_ connection: DFUConnection) async throws -> DFUConnection {
        session.state(.enablingDfuMode)
        let jump = ButtonlessJump(session: session)
        let application = session.applicationAddress ?? BluetoothAddress(connection.address)
        var candidates: [BluetoothAddress] = []
        switch connection.mode {
        case .secureApplication(let buttonless, let kind):
            try await jump.secure(buttonless, kind: kind, peripheral: connection.peripheral)
            if let application { candidates = kind == .withBonds ? [application] : [application.incremented] }
        case .legacyApplication(let controlPoint, _):
            try await jump.legacy(controlPoint, peripheral: connection.peripheral)
            if let application { candidates = [application, application.incremented] }
        case .secureBootloader, .legacyBootloader:
            return connection
        }
        let next = try await session.reconnect(candidates: located(candidates), name: bootloaderName)
        guard next.mode.isBootloader else {
            await next.peripheral.disconnect()
            throw session.failure(
                .deviceNotSupported, "the device came back at \(next.address) still in application mode")
        }
        return next
    }

    /// `defaults` filtered by the user's choice of where the bootloader advertises.
    private func located(_ defaults: [BluetoothAddress]) -> [BluetoothAddress] {
        guard let application = session.applicationAddress else { return defaults }
        switch options.bootloaderLocation {
        case .automatic: return defaults
        case .sameAddress: return [application]
        case .incrementedAddress: return [application.incremented]
        case .name: return []
        }
    }

    /// Where the device may reappear after a part: where it just was, or at either of its
    /// addresses (application mode, or a bootloader without bond information).
    private func rebootCandidates(after connection: DFUConnection) -> [BluetoothAddress] {
        var candidates: [BluetoothAddress] = []
        for address in [
            BluetoothAddress(connection.address), session.applicationAddress?.incremented,
            session.applicationAddress,
        ] {
            if let address, !candidates.contains(address) { candidates.append(address) }
        }
        return located(candidates)
    }

    // MARK: Parts

    /// Sends part `index`, reconnecting after a lost link (Secure resumes, Legacy restarts the
    /// part) up to `options.retries` times. `track` learns every new connection.
    private func sendPart(
        _ index: Int, on start: DFUConnection, track: (DFUConnection) -> Void
    ) async throws -> (PartOutcome, DFUConnection) {
        let part = package.images[index]
        let meter = ProgressMeter(
            part: index + 1, totalParts: package.images.count, partBytes: part.firmware.count,
            linkTime: session.linkTime)
        var connection = start
        var attempt = 0
        while true {
            do {
                return (try await sendPartOnce(index, on: connection, meter: meter), connection)
            } catch let failure as DFUFailure where failure.isRetryable && attempt < options.retries {
                attempt += 1
                session.retries += 1
                session.log(
                    .warning, "\(failure.detail); reconnecting (retry \(attempt) of \(options.retries))")
                await connection.peripheral.disconnect()
                session.state(.connecting)
                connection = try await session.reconnect(
                    candidates: [BluetoothAddress(connection.address)].compactMap { $0 }
                        + rebootCandidates(after: connection),
                    name: bootloaderName)
                track(connection)
                if !connection.mode.isBootloader {
                    connection = try await enterBootloader(connection)
                    track(connection)
                }
            }
        }
    }

    private func sendPartOnce(_ index: Int, on connection: DFUConnection, meter: ProgressMeter) async throws
        -> PartOutcome
    {
        let part = package.images[index]
        session.state(.starting)
        session.log(
            .info,
            "sending part \(index + 1) of \(package.images.count): \(part.kind), \(part.firmware.count) bytes"
        )
        switch connection.mode {
        case .secureBootloader(let controlPointCharacteristic, let packet):
            let inbox = try await subscribe(controlPointCharacteristic, connection)
            defer { inbox.close() }
            let controlPoint = SecureControlPoint(
                characteristic: controlPointCharacteristic, inbox: inbox, session: session)
            let size = await PacketSender.packetSize(
                for: packet, format: .secure, maximum: options.maximumPacketSize)
            var executor = SecureDFUExecutor(
                session: session, part: part, controlPoint: controlPoint,
                sender: PacketSender(characteristic: packet, packetSize: size), meter: meter,
                resumeAllowed: !options.disableResume)
            let outcome: SecureDFUExecutor.Outcome
            let started = session.linkTime.now()
            do {
                outcome = try await executor.run()
                session.transferDurations.append(session.linkTime.now() - started)
            } catch {
                if !(error as? DFUFailure).map(\.isRetryable).orFalse {
                    await sendAbort(SecureDFURequest.abort.encoded, to: controlPointCharacteristic)
                }
                throw error
            }
            if case .initPacketRejected(let failure) = outcome {
                guard index == 0, package.images.count > 1, part.kind != .application else {
                    await sendAbort(SecureDFURequest.abort.encoded, to: controlPointCharacteristic)
                    throw failure
                }
                session.log(
                    .warning,
                    "the system image was refused (\(failure.detail)); it is probably installed already, "
                        + "going on with the application")
                return .skippedToApplication
            }
        case .legacyBootloader(let controlPointCharacteristic, let packet, let version):
            let inbox = try await subscribe(controlPointCharacteristic, connection)
            defer { inbox.close() }
            let controlPoint = LegacyControlPoint(
                characteristic: controlPointCharacteristic, inbox: inbox, session: session)
            var executor = LegacyDFUExecutor(
                session: session, part: part, controlPoint: controlPoint,
                sender: PacketSender(characteristic: packet, packetSize: 20), version: version, meter: meter)
            let started = session.linkTime.now()
            do {
                try await executor.run()
                session.transferDurations.append(executor.validatedAt - started)
            } catch {
                // Legacy DFU cannot resume: make the bootloader drop the transfer before a restart.
                await sendAbort(LegacyDFURequest.reset.encoded, to: controlPointCharacteristic)
                throw error
            }
        case .secureApplication, .legacyApplication:
            throw session.failure(
                .invalidInternalState, "part \(index + 1) reached a device in application mode")
        }
        session.state(.disconnecting)
        do {
            try await connection.peripheral.waitForDisconnection(timeout: options.responseTimeout)
        } catch {
            session.log(.warning, "the device did not reset after the update; disconnecting")
            await connection.peripheral.disconnect()
        }
        return .sent
    }

    private func subscribe(_ characteristic: any GATTCharacteristic, _ connection: DFUConnection) async throws
        -> NotificationInbox
    {
        do {
            let stream = try await characteristic.subscribe(timeout: options.notificationTimeout)
            return NotificationInbox(stream, device: connection.address)
        } catch {
            throw session.mapped(error, during: .enablingControlPointFailed)
        }
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

    // MARK: End

    private func end(with error: any Error, connection: DFUConnection?) async {
        let aborted = session.controller.isAborted || error is CancellationError
        if let connection {
            await Task { await connection.peripheral.disconnect() }.value
        }
        if aborted {
            session.log(.info, "aborted by the user")
            session.state(.aborted)
            session.finish(.aborted)
            return
        }
        let failure =
            (session.mapped(error, during: .invalidInternalState) as? DFUFailure)
            ?? session.failure(.invalidInternalState, "\(error)")
        session.log(.error, failure.message)
        session.finish(.failed(failure))
    }
}

extension DFUFailure {
    /// Failures a reconnection may cure: a lost link, a lost notification, lost packets, or a
    /// Legacy bootloader stuck in a previous transfer.
    var isRetryable: Bool {
        switch error {
        case .deviceDisconnected, .receivingNotificationFailed, .bytesLost, .writingCharacteristicFailed,
            .remoteLegacyDFUInvalidState:
            true
        default:
            false
        }
    }
}

extension Bool? {
    fileprivate var orFalse: Bool { self ?? false }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
