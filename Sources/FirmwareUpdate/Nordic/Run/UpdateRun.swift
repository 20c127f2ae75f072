import GATT
import NordicDFU

/// One run of the state machine (docs/engine.md).
struct UpdateRun {
    let session: UpdateSession
    let package: DFUPackage
    /// Where the device comes back and how Secure DFU paces it, over the whole update.
    let runState = NordicRunState()

    var options: DFUOptions { session.options }

    enum PartOutcome {
        /// The device took the part and resets.
        case sent
        /// The system part's init packet was refused; the device still waits in its bootloader
        /// on the same connection, ready for the application part.
        case skippedToApplication
        /// The device had activated the part before its answer was lost; it waits on this
        /// connection for the next part.
        case activatedBefore
        /// The device runs the package's application: nothing more to send.
        case confirmed
    }

    func run() async {
        var connection: DFUConnection?
        do {
            session.state(.connecting)
            var current = try await session.connect(session.device)
            connection = current
            runState.whereabouts.applicationAddress = current.address
            runState.whereabouts.startedInBootloader = current.mode.isBootloader
            let check = await versionCheck(current, force: options.force)
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
            parts: while index < package.images.count {
                if !reuseConnection {
                    session.state(.connecting)
                    current = try await session.reconnect(
                        candidates: rebootCandidates(after: current), name: bootloaderName,
                        activatedBytes: package.images[index - 1].firmware.count)
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
                case .skippedToApplication, .activatedBefore: reuseConnection = true
                case .confirmed: break parts
                }
                index += 1
            }
            session.state(.completed)
            session.finish(.completed)
        } catch {
            await session.end(with: error, disconnecting: connection?.peripheral)
        }
    }

    var bootloaderName: String? {
        if case .name(let name) = options.nordic.bootloaderLocation { return name }
        return runState.whereabouts.bootloaderName
    }

    // MARK: Version

    /// The version the package installs: the user's word for it, or the application's init
    /// packet's.
    var packageVersion: DFUFirmwareVersion? {
        let packaged = package.applicationVersion.flatMap {
            $0 == .max ? nil : DFUFirmwareVersion(number: $0)
        }
        return options.packageVersion.flatMap(DFUFirmwareVersion.init) ?? packaged
    }

    /// Compares what the device runs with the package; `force` turns a skip into `forced`.
    func versionCheck(_ connection: DFUConnection, force: Bool) async -> DFUVersionCheck {
        let installed = connection.mode.isBootloader ? nil : await installedVersion(connection)
        return DFUVersionCheck(installed: installed, package: packageVersion, force: force)
    }

    /// The version an application reports; nil when it reports none or the read fails.
    func installedVersion(_ connection: DFUConnection) async -> String? {
        do {
            let version = try await DeviceProbe.text(
                of: options.versionCharacteristic, in: connection.services,
                timeout: options.notificationTimeout)
            if version == nil { session.log(.info, "the device does not report its firmware version") }
            return version
        } catch {
            session.log(.warning, "could not read the firmware version: \(error)")
            return nil
        }
    }
}
