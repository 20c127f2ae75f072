import DBus
import GATT
import Synchronization

/// The `WriteValue(type: command)` calls of one connection still awaiting bluetoothd's reply.
///
/// bluetoothd answers a write command as soon as it has queued it on the link, so awaiting each
/// reply before sending the next costs a D-Bus round trip per packet. Up to `limit` calls stay in
/// flight instead; D-Bus keeps them in order. A failed write is reported by the next write
/// command or request on the same connection, which first collects what is due.
actor CommandWindow {
    private struct Sent {
        let call: DBusPendingCall
        let operation: String
    }

    /// Calls in flight at the most.
    let limit: Int
    private let bus: BlueZBus
    private let link: LinkState
    /// The device's address, for messages.
    private let device: String
    private var inFlight: [Sent] = []
    private var oldest = 0
    /// `inFlight.count - oldest`, readable without a hop onto the actor.
    private let due = Atomic(0)

    init(limit: Int, bus: BlueZBus, link: LinkState, device: String) {
        self.limit = limit
        self.bus = bus
        self.link = link
        self.device = device
    }

    /// Sends one write command, first waiting for the oldest reply while the window is full.
    /// Callers send one at a time (each awaits the last), which keeps the commands in order.
    func write(_ value: [UInt8], path: String, operation: String, timeout: Duration) async throws {
        while inFlight.count - oldest >= limit { try await collectOldest() }
        let call: DBusPendingCall
        do {
            call = try bus.startCall(
                path, BlueZ.characteristicInterface, "WriteValue",
                [.bytes(value), BlueZ.writeCommandOptions], timeout: timeout)
        } catch {
            throw failure(error, operation)
        }
        inFlight.append(Sent(call: call, operation: operation))
        due.add(1, ordering: .releasing)
    }

    /// Awaits every reply still due: the writes sent so far have been taken by bluetoothd. With
    /// none due (always, through `AcquireWrite`) it returns without a hop onto the actor: a
    /// request drains first, twice per DFU object.
    nonisolated(nonsending) func drain() async throws {
        guard due.load(ordering: .acquiring) > 0 else { return }
        try await collectAll()
    }

    private func collectAll() async throws {
        while oldest < inFlight.count { try await collectOldest() }
    }

    private func collectOldest() async throws {
        let sent = inFlight[oldest]
        oldest += 1
        due.subtract(1, ordering: .releasing)
        if oldest == inFlight.count {
            inFlight.removeAll(keepingCapacity: true)
            oldest = 0
        }
        do {
            _ = try await sent.call.reply()
        } catch {
            // the rest of the window cannot be trusted after a failed write
            inFlight.removeAll(keepingCapacity: true)
            oldest = 0
            due.store(0, ordering: .releasing)
            throw failure(error, sent.operation)
        }
    }

    private func failure(_ error: any Error, _ operation: String) -> any Error {
        if let reason = link.downReason {
            return GATTError.disconnected(device: device, reason: reason)
        }
        return gattError(error, operation, device: device)
    }
}
