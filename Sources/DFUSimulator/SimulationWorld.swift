import DFUSupport
import GATT
import NordicDFU

/// Everything one `SimulatedCentral` simulates, behind one lock: the virtual clock, the devices
/// and their links, and the scans in progress. Device logic runs synchronously inside the lock,
/// in the order the client's operations arrive.
final class SimulationWorld: Sendable {
    struct State {
        var now: Nanoseconds = 0
        var devices: [SimulatedDevice]
        var nextConnectionID = 1
        var scanners: [Int: Scanner] = [:]
        var nextScannerID = 0
        /// The devices (by identity address) the central holds a bond for (`LinkSecurity`).
        var centralBonds: Set<BluetoothAddress> = []
    }

    struct Scanner {
        var filter: ScanFilter
        var continuation: AsyncThrowingStream<Advertisement, any Error>.Continuation
    }

    let state: Locked<State>

    init(devices: [SimulatedDeviceConfiguration]) {
        state = Locked(State(devices: devices.map(SimulatedDevice.init)))
    }

    // MARK: Links

    /// Runs `body` on the device's current link; throws `disconnected` when `connection` is gone.
    func withLink<Result>(
        device index: Int, connection: Int,
        _ body: (inout State, inout SimulatedConnection) throws -> Result
    ) throws -> Result {
        try state.withLock { state in
            guard var link = state.devices[index].connection, link.id == connection else {
                throw GATTError.disconnected(
                    device: state.devices[index].address.description, reason: "the simulated link is down")
            }
            state.devices[index].connection = nil
            defer {
                if state.devices[index].connection == nil, !link.disconnection.isFired {
                    state.devices[index].connection = link
                }
            }
            return try body(&state, &link)
        }
    }

    func connect(_ identifier: DeviceIdentifier) throws -> (
        index: Int, connection: SimulatedConnection, device: SimulatedDevice
    ) {
        try state.withLock { state in
            let found = state.devices.firstIndex { device in
                guard device.connection == nil, !device.firmware.services.isEmpty else {
                    return false
                }
                switch identifier {
                case .address(let address): return address == device.address
                case .name(let name): return name == device.advertisedName
                }
            }
            guard let index = found else {
                throw GATTError.connectionFailed(
                    device: identifier.description, reason: "no simulated device advertises as \(identifier)")
            }
            let timing = state.devices[index].core.timing
            state.now = max(state.now, state.devices[index].availableAt) + timing.connectionSetup.nanoseconds
            guard state.devices[index].core.acceptsConnection() else {
                throw GATTError.connectionFailed(
                    device: identifier.description,
                    reason: "the simulated device refused the connection (reject-connect)")
            }
            let connection = SimulatedConnection(
                id: state.nextConnectionID,
                schedule: LinkSchedule(
                    interval: timing.connectionInterval.nanoseconds, slotsPerEvent: timing.packetsPerEvent),
                mtu: state.devices[index].linkMTU)
            state.nextConnectionID += 1
            state.devices[index].connection = connection
            return (index, connection, state.devices[index])
        }
    }

    /// Drops the device's link at `time`: subscriptions end with `disconnected`, waiters resume,
    /// the firmware learns of it, and (unless it is resetting) the device advertises again.
    static func dropLink(
        of index: Int, link: SimulatedConnection, at time: Nanoseconds, reason: String,
        resetting: Bool = false,
        in state: inout State
    ) {
        let address = state.devices[index].address.description
        for channel in link.subscriptions.values {
            channel.finish(throwing: GATTError.disconnected(device: address, reason: reason))
        }
        link.disconnection.fire()
        state.devices[index].connection = nil
        state.devices[index].lastDisconnection = time
        state.devices[index].firmware.linkDropped()
        if !resetting { announce(index, in: &state) }
    }

    /// Reports a device that (again) advertises to the scans in progress.
    static func announce(_ index: Int, in state: inout State) {
        let advertisement = state.devices[index].advertisement
        for scanner in state.scanners.values where scanner.filter.matches(advertisement) {
            scanner.continuation.yield(advertisement)
        }
    }

    /// Carries out what a write made the device do: notifications go out in their events, then
    /// the link may drop and the device reset.
    ///
    /// The central's clock reaches a notification's event here, as the device sends it, in the
    /// order of the client's operations, not of task scheduling. An SMP device's answers are the
    /// exception: the clock reaches their event when the client takes them (`received`), which
    /// the engine does only while it waits for one, so the writes it sends before it waits
    /// (a window of upload chunks) overlap the device's work, as on a real link.
    static func apply(
        _ output: DeviceOutput, device index: Int, link: inout SimulatedConnection, triggerEvent: Int64,
        in state: inout State
    ) {
        var lastEvent = triggerEvent
        let takenLater = state.devices[index].configuration.kind == .smpApp
        for notification in output.notifications {
            let event = link.schedule.replyEvent(after: triggerEvent, readyAt: notification.readyAt)
            lastEvent = event
            guard let channel = link.subscriptions[notification.characteristic], channel.isOpen else {
                continue
            }
            if state.devices[index].core.notificationIsLost() { continue }
            if takenLater, !channel.push(notification.value, event: event) { continue }
            link.schedule.centralReceived(inEvent: event, now: &state.now)
            if !takenLater { channel.push(notification.value) }
        }
        guard output.dropsLink || output.reset != nil else { return }
        let dropTime = link.schedule.time(ofEvent: max(lastEvent, triggerEvent + 1))
        let reason = output.reset == nil ? "link lost (disconnect-at fault)" : "the device reset"
        dropLink(
            of: index, link: link, at: dropTime, reason: reason, resetting: output.reset != nil, in: &state)
        if let reset = output.reset {
            state.devices[index].start(reset.target, at: dropTime + reset.extraDelay)
            announce(index, in: &state)
        }
    }

    /// The client took a notification sent in connection `event` on `connection`: the central's
    /// clock reaches that event (a link gone since is reconnected later anyway).
    func received(event: Int64, device index: Int, connection: Int) {
        state.withLock { state in
            guard var link = state.devices[index].connection, link.id == connection else { return }
            link.schedule.centralReceived(inEvent: event, now: &state.now)
            state.devices[index].connection = link
        }
    }

    // MARK: Scanning

    func addScanner(
        _ filter: ScanFilter, continuation: AsyncThrowingStream<Advertisement, any Error>.Continuation
    ) -> Int {
        state.withLock { state in
            let id = state.nextScannerID
            state.nextScannerID += 1
            state.scanners[id] = Scanner(filter: filter, continuation: continuation)
            for device in state.devices where device.connection == nil && filter.matches(device.advertisement)
            {
                continuation.yield(device.advertisement)
            }
            return id
        }
    }

    func removeScanner(_ id: Int) {
        _ = state.withLock { $0.scanners.removeValue(forKey: id) }
    }
}

extension SimulationWorld.State {
    /// Hands a written value to the device's firmware at device time `time`.
    mutating func deliver(
        _ value: [UInt8], to characteristic: BluetoothUUID, of index: Int, at time: Nanoseconds
    )
        -> DeviceOutput
    {
        devices[index].deliver(value, to: characteristic, at: time)
    }
}
