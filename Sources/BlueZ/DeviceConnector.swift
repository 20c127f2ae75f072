import DBus
import GATT

/// One connection to a device: `Device1.Connect` (retried on the usual transient failure), then
/// the wait for `ServicesResolved`, then the GATT objects. Bounded by one deadline.
struct DeviceConnector {
    let central: BlueZCentral
    let identifier: DeviceIdentifier
    let path: String
    let deadline: ContinuousClock.Instant

    private var device: String { identifier.description }
    private var bus: BlueZBus { central.bus }

    func connect() async throws -> BlueZPeripheral {
        let monitor: DeviceMonitor
        do {
            monitor = try await DeviceMonitor.start(bus: bus, path: path)
        } catch {
            throw gattError(error, "watching \(device)", device: device)
        }
        let lostBondWatch = watchForALostBond(paired: monitor.snapshot.device.isPaired)
        let resolved: DeviceMonitor.Snapshot
        do {
            resolved = try await connectAndResolve(monitor)
        } catch GATTError.connectionFailed(let device, let reason) {
            // (a device removed to pair again is forgotten only when its link drops: not paired then)
            if lostBondWatch?.linkDroppedForAuthentication() == true,
                (try? await bus.isPaired(path, device: device)) == true
            {
                throw GATTError.securityFailed(
                    device: device, failure: .bondLost,
                    reason:
                        "the encryption with the bond this host holds (PIN or key missing): the device lost its keys"
                )
            }
            throw GATTError.connectionFailed(device: device, reason: reason)
        }
        let tree: ObjectTree
        do {
            tree = try await bus.managedObjects()
        } catch {
            throw gattError(error, "listing the services of \(device)", device: device)
        }
        guard let address = resolved.device.address.flatMap(BluetoothAddress.init) else {
            throw GATTError.connectionFailed(
                device: device, reason: "bluetoothd lists no Bluetooth address for it (\(path))")
        }
        let peripheral = BlueZPeripheral(
            central: central, monitor: monitor, address: address,
            name: resolved.device.name, tree: tree)
        if central.options.pairing?.pairsFirst == true, let pairing = peripheral.pairing {
            do {
                try await pairing.pairUnlessPaired()
            } catch {
                await peripheral.disconnect()
                throw error
            }
        }
        return peripheral
    }

    /// `Device1.Connect`, then the wait for its services.
    private func connectAndResolve(_ monitor: DeviceMonitor) async throws -> DeviceMonitor.Snapshot {
        try await callConnect(monitor)
        do {
            try await monitor.refresh(bus)
        } catch {
            throw gattError(error, "reading the state of \(device)", device: device)
        }
        return try await monitor.wait(try remaining(), "services of \(device) to be resolved") { snapshot in
            if let gone = snapshot.goneReason {
                throw GATTError.connectionFailed(device: device, reason: gone)
            }
            guard snapshot.device.isConnected else {
                throw GATTError.connectionFailed(
                    device: device, reason: snapshot.device.droppedWhileResolvingServices)
            }
            return snapshot.device.servicesResolved
        }
    }

    /// A watch for the kernel's reason should the link drop, for a device bluetoothd holds a bond
    /// with (`paired`: whose link it encrypts at once); nil for others, or without the privilege
    /// it needs.
    private func watchForALostBond(paired: Bool) -> LostBondWatch? {
        guard paired, let address = BluetoothAddress(DevicePath.address(of: path)) else { return nil }
        return LostBondWatch(adapter: central.adapterName, address: address)
    }

    private func remaining() throws -> Duration {
        let left = deadline - ContinuousClock.now
        guard left > .zero else {
            throw GATTError.timeout(operation: "connecting to \(device)", seconds: 0)
        }
        return left
    }

    /// `Device1.Connect`; retried after `le-connection-abort-by-local` once the link is down.
    private func callConnect(_ monitor: DeviceMonitor) async throws {
        var attempt = 0
        while true {
            attempt += 1
            let limit = min(try remaining(), .seconds(35))
            do {
                _ = try await bus.call(path, BlueZ.deviceInterface, "Connect", timeout: limit)
                return
            } catch let error as DBusError {
                let transient = error.name == BlueZ.failedError && error.message == BlueZ.localConnectAbort
                if transient && attempt < central.options.connectAttempts {
                    // the link may have come up briefly; let it be reported down before retrying
                    _ = try? await monitor.wait(.seconds(2), "the aborted link to close") {
                        !$0.device.isConnected
                    }
                    continue
                }
                if case .timedOut = error {
                    // bluetoothd keeps trying after our call gave up; Disconnect cancels that
                    let bus = self.bus
                    let path = self.path
                    Task {
                        _ = try? await bus.call(
                            path, BlueZ.deviceInterface, "Disconnect", timeout: .seconds(5))
                    }
                }
                throw connectError(error, attempts: attempt)
            }
        }
    }

    private func connectError(_ error: DBusError, attempts: Int) -> GATTError {
        let mapped = error.gattError("connecting to \(device)", device: device)
        switch mapped {
        case .bluetoothUnavailable, .timeout: return mapped
        default:
            let tries = attempts > 1 ? " (after \(attempts) attempts)" : ""
            return .connectionFailed(device: device, reason: "\(error.message)\(tries)")
        }
    }
}
