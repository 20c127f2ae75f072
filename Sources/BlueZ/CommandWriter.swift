import DBus
import DFUSupport
import GATT
import Synchronization

/// Write commands (write without response) on one characteristic: through the socket of
/// `AcquireWrite` when bluetoothd offers it, else `WriteValue(type: command)` calls, several in
/// flight at once (`CommandWindow`).
actor CommandWriter {
    private enum Path {
        case undecided
        case socket(PacketSocket)
        case methodCalls
    }

    private let context: CharacteristicContext
    private let path: String
    private let uuid: BluetoothUUID
    /// Chosen on the actor by the first write and kept for good, so that a write through the
    /// acquired socket reads it without a hop onto the actor.
    private let route = Mutex(Path.undecided)

    /// How long one command may wait for room in bluetoothd's queue.
    static let sendTimeout: Duration = .seconds(10)

    init(context: CharacteristicContext, path: String, uuid: BluetoothUUID) {
        self.context = context
        self.path = path
        self.uuid = uuid
    }

    /// The MTU the acquired socket came with, if one is in use.
    nonisolated var acquiredMTU: Int? {
        if case .socket(let socket) = route.withLock({ $0 }) { return socket.mtu }
        return nil
    }

    /// Writes `bytes` as commands of `packetSize` bytes (the last may be shorter; empty `bytes`
    /// are one empty command), in order, adding the bytes of each one handed over to `written`.
    /// Callers write one batch at a time (each awaits the last), which keeps the commands in order.
    nonisolated(nonsending) func write(
        _ bytes: ArraySlice<UInt8>, inPacketsOf packetSize: Int, written: inout Int
    ) async throws {
        if case .socket(let socket) = route.withLock({ $0 }) {
            try send(bytes, through: socket, inPacketsOf: packetSize, written: &written)
        } else {
            try await writeChoosingRoute(bytes, inPacketsOf: packetSize, written: &written)
        }
    }

    private func writeChoosingRoute(
        _ bytes: ArraySlice<UInt8>, inPacketsOf packetSize: Int, written: inout Int
    ) async throws {
        var chosen = route.withLock { $0 }
        if case .undecided = chosen {
            chosen = await acquire()
            route.withLock { [chosen] in $0 = chosen }
        }
        switch chosen {
        case .socket(let socket):
            try send(bytes, through: socket, inPacketsOf: packetSize, written: &written)
        case .methodCalls, .undecided:
            let operation = "writing without response to \(uuid) on \(context.device)"
            for packet in bytes.packetRanges(ofSize: packetSize) {
                try await context.pendingCommands.write(
                    Array(bytes[packet]), path: path, operation: operation, timeout: Self.sendTimeout)
                written += packet.count
            }
        }
    }

    private nonisolated func send(
        _ bytes: ArraySlice<UInt8>, through socket: PacketSocket, inPacketsOf packetSize: Int,
        written: inout Int
    ) throws {
        let longest = min(packetSize, bytes.count)
        guard longest <= min(socket.mtu - 3, BlueZCharacteristic.bluetoothdValueLimit) else {
            throw GATTError.operationFailed(
                operation: "writing \(longest) bytes without response to \(uuid) on \(context.device)",
                reason: "longer than the link allows (MTU \(socket.mtu))")
        }
        do {
            try socket.send(bytes, inDatagramsOf: packetSize, timeout: Self.sendTimeout, sent: &written)
        } catch .hungUp {
            context.link.markDown("bluetoothd closed the write socket")
            throw GATTError.disconnected(device: context.device, reason: context.link.downReason ?? "")
        } catch .timedOut {
            throw GATTError.timeout(
                operation: "room to write to \(uuid) on \(context.device)",
                seconds: Self.sendTimeout.seconds)
        } catch .failed(let code) {
            throw GATTError.operationFailed(
                operation: "writing to \(uuid) on \(context.device)", reason: "send failed, errno \(code)"
            )
        }
    }

    /// `AcquireWrite`, or method calls when it is turned off or bluetoothd refuses it.
    private func acquire() async -> Path {
        guard context.options.acquireWrite else { return .methodCalls }
        guard
            let reply = try? await context.bus.call(
                path, BlueZ.characteristicInterface, "AcquireWrite", [.propertyDictionary([])],
                timeout: .seconds(10)),
            reply.count == 2, let fd = reply[0].unixFDValue, let mtu = reply[1].intValue
        else { return .methodCalls }
        let socket = PacketSocket(fileDescriptor: fd.take(), mtu: mtu)
        // a dropped link ends the socket, so that nothing waits on it
        context.link.onDown { _ in socket.shutDown() }
        return .socket(socket)
    }
}
