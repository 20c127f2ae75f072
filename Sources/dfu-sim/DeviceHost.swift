import BlueZ
import DFUSimulator
import DFUSupport
import GATT
import NordicDFU

/// Serves a `RealTimeDevice` on a BlueZ adapter: registers the running firmware's GATT table and
/// advertises it, hands every write to the device and answers it at once, sends the device's
/// notifications when they are due, drops the link when the device does, and re-registers across
/// every reset (docs/dfu-sim.md).
final class DeviceHost: Sendable {
    struct State {
        var server: BlueZGATTServer?
        var advertiser: StaticAddressAdvertiser?
        /// The connected central's address.
        var central: String?
        /// From the write that makes the device drop its link until it is up again: later writes
        /// are answered but not delivered (the device is gone).
        var dropping = false
        /// From the write that resets the device until its new persona is served.
        var rebooting = false
        /// The address the current persona advertises at.
        var shownAddress = ""
        /// When the last write was handed over or the last notification sent: the link drops
        /// only once both had time to go out.
        var lastExchange = ContinuousClock.now
        var stopped = false
    }

    private enum Action: Sendable {
        case notify(BluetoothUUID, [UInt8], due: ContinuousClock.Instant)
        case dropLink(rebootDelay: Duration?)
    }

    /// `--trace`: a write that arrived at `arrived`, and how long after that its notifications are due.
    private struct WriteReport: Sendable {
        var characteristic: BluetoothUUID
        var value: [UInt8]
        var arrived: ContinuousClock.Instant
        var notifiesAfter: [Duration]
    }

    let device: RealTimeDevice
    let links: PeripheralLinks
    let reporter: SimReporter
    private let tracesWrites: Bool
    /// What the device's writable characteristics ask of the link.
    let security: LocalSecurity
    let state = Locked(State())
    private let actions = AsyncStream<Action>.makeStream()
    /// Printed by a task of their own, so that printing them does not hold back what the device does.
    private let reports = AsyncStream<WriteReport>.makeStream()
    private let workers = Locked<[Task<Void, Never>]>([])

    init(
        device: RealTimeDevice, links: PeripheralLinks, reporter: SimReporter, tracesWrites: Bool,
        security: LocalSecurity = .open
    ) {
        self.device = device
        self.links = links
        self.reporter = reporter
        self.tracesWrites = tracesWrites
        self.security = security
    }

    /// Serves the device's first persona and starts following links and reactions.
    func start() async throws {
        try await serve(device.persona)
        let linkWatcher = Task { [self] in
            for await event in links.events { await linkChanged(event) }
        }
        let actionRunner = Task { [self] in
            for await action in actions.stream { await carryOut(action) }
        }
        let reportPrinter = Task { [reporter, reports] in
            for await report in reports.stream {
                reporter.write(
                    report.characteristic, report.value, arrived: report.arrived,
                    notifiesAfter: report.notifiesAfter)
            }
        }
        workers.withLock { $0 = [linkWatcher, actionRunner, reportPrinter] }
    }

    /// Drops the central's link (a link left up poisons the central's next one), stops serving,
    /// and lets a reset already under way finish, so that the device's state is what it boots.
    func stop() async {
        let central = state.withLock { state in
            state.stopped = true
            return state.central
        }
        workers.withLock { $0.forEach { $0.cancel() } }
        if let central { await links.disconnect(central) }
        await stopServing()
        device.reboot()
    }

    // MARK: - writes and reactions

    /// A central wrote `value`: the device handles it now; what it does follows in order.
    func received(_ characteristic: BluetoothUUID, _ value: [UInt8]) {
        let delivered = state.withLock { state in
            state.lastExchange = .now
            return !state.dropping
        }
        guard delivered else { return }
        let arrived = ContinuousClock.now
        let reaction = device.write(characteristic, value)
        let now = ContinuousClock.now
        if tracesWrites {
            // printed by another task, as a rule after this call has returned and the write was answered
            reports.continuation.yield(
                WriteReport(
                    characteristic: characteristic, value: value, arrived: arrived,
                    notifiesAfter: reaction.notifications.map { now - arrived + $0.after }))
        }
        for notification in reaction.notifications {
            actions.continuation.yield(
                .notify(notification.characteristic, notification.value, due: now + notification.after))
        }
        if reaction.dropsLink {
            state.withLock { state in
                state.dropping = true
                state.rebooting = reaction.reboots
            }
            actions.continuation.yield(.dropLink(rebootDelay: reaction.rebootDelay))
        }
    }

    private func carryOut(_ action: Action) async {
        switch action {
        case .notify(let characteristic, let value, let due):
            try? await Task.sleep(until: due)
            let server = state.withLock { state in
                state.lastExchange = .now
                return state.server
            }
            _ = try? server?.notify(characteristic, value)
        case .dropLink(let rebootDelay):
            await dropLink()
            if let rebootDelay {
                await stopServing()
                try? await Task.sleep(for: rebootDelay)
                guard !state.withLock({ $0.stopped }) else { return }
                do {
                    try await serve(device.reboot())
                } catch {
                    reporter.warning("the device could not come back after its reset: \(error)")
                }
            }
            state.withLock { state in
                state.dropping = false
                state.rebooting = false
            }
        }
    }

    /// Drops the link once no write is pending: bluetoothd 5.66 can crash when an application
    /// answers a write after its link dropped, so the last answer (and the last notification,
    /// which the central must see, e.g. Execute's response before the reset) gets 200 ms to go
    /// out.
    private func dropLink() async {
        let settle = Duration.milliseconds(200)
        let deadline = ContinuousClock.now + .seconds(2)
        while true {
            let quietFrom = min(state.withLock { $0.lastExchange } + settle, deadline)
            guard ContinuousClock.now < quietFrom else { break }
            try? await Task.sleep(until: quietFrom)
        }
        guard let central = state.withLock({ $0.central }) else { return }
        await links.disconnect(central)
        // The link watcher clears `central` when bluetoothd reports the link down.
        let down = ContinuousClock.now + .seconds(5)
        while state.withLock({ $0.central }) != nil, ContinuousClock.now < down {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    // MARK: - links

    private func linkChanged(_ event: PeripheralLinks.Event) async {
        switch event {
        case .connected(let address):
            let advertiser = state.withLock { state in
                state.central = address
                return state.advertiser
            }
            advertiser?.setPaused(true)
            if !device.connectionAttempt() { await links.disconnect(address) }
        case .disconnected(let address):
            let current: State? = state.withLock { state in
                guard state.central == address else { return nil }
                state.central = nil
                return state
            }
            guard let current else { return }
            let advertiser = current.advertiser
            let advertisesAgain = !current.rebooting && !current.stopped
            device.linkDropped()
            advertiser?.setPaused(false)
            guard advertisesAgain else { return }
            do {
                try await current.server?.restartAdvertising()
                let persona = device.persona
                reporter.advertising(address: current.shownAddress, name: persona.name, mode: persona.mode)
            } catch {
                reporter.warning("the device could not advertise again: \(error)")
            }
        }
    }
}
