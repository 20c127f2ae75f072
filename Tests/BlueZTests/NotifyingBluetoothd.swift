import DBus
import Foundation
import Synchronization

/// A model of what bluetoothd 5.66 does with a central's notification calls on one
/// characteristic (src/gatt-client.c), exported as org.bluez on a test bus, with the adapter's
/// `RemoveDevice` and the device's `Paired`.
///
/// Each subscribe call writes the characteristic's CCC descriptor. While the table is stale
/// that write meets an ATT error: `StartNotify` then fails cleanly, while `AcquireNotify`
/// leaves its session behind, never answers and makes every later `AcquireNotify` and
/// `StartNotify` fail with "Notify acquired". Removing the device gives a fresh table.
final class NotifyingBluetoothd: Sendable {
    static let adapterPath = "/org/bluez/hci0"
    static let devicePath = "/org/bluez/hci0/dev_00_AA_01_01_00_01"
    static let characteristicPath = devicePath + "/service000a/char000b"

    private struct State {
        /// The ATT error the CCC write meets while the table is stale.
        var staleTableError: UInt8?
        var sessionLeftBehind = false
        var calls: [String] = []
        var socket: Int32?
    }
    private let state: Mutex<State>

    /// The methods called, in order.
    var calls: [String] { state.withLock { $0.calls } }

    /// A stale table answers the CCC write with `staleTableError`; nil is a fresh table.
    init(serving connection: DBusConnection, staleTableError: UInt8?) async throws {
        state = Mutex(State(staleTableError: staleTableError))
        try await connection.requestName("org.bluez")
        try connection.exportObject(
            at: Self.adapterPath,
            interfaces: [
                DBusInterface(
                    "org.bluez.Adapter1",
                    methods: [
                        DBusMethod("RemoveDevice", in: "o") { [self] _ in removeDevice() }
                    ])
            ])
        try connection.exportObject(
            at: Self.devicePath,
            interfaces: [
                DBusInterface(
                    "org.bluez.Device1", properties: [DBusProperty("Paired", value: .boolean(false))])
            ])
        try connection.exportObject(
            at: Self.characteristicPath,
            interfaces: [
                DBusInterface(
                    "org.bluez.GattCharacteristic1",
                    methods: [
                        DBusMethod("StartNotify") { [self] _ in try startNotify() },
                        DBusMethod("StopNotify") { [self] _ in record("StopNotify") },
                        DBusMethod("AcquireNotify", in: "a{sv}", out: "hq") { [self] _ in
                            try await acquireNotify()
                        },
                    ])
            ])
    }

    deinit { state.withLock { $0.socket.map { _ = close($0) } } }

    /// Sends `value` as a notification through the acquired socket.
    func notify(_ value: [UInt8]) {
        state.withLock { state in
            guard let socket = state.socket else { return }
            _ = value.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// Closes bluetoothd's end of the acquired socket, as when the link drops.
    func hangUp() {
        state.withLock { state in
            state.socket.map { _ = close($0) }
            state.socket = nil
        }
    }

    private func removeDevice() -> [DBusValue] {
        state.withLock { state in
            state.calls.append("RemoveDevice")
            state.staleTableError = nil
        }
        return []
    }

    private func record(_ call: String) -> [DBusValue] {
        state.withLock { $0.calls.append(call) }
        return []
    }

    private func startNotify() throws -> [DBusValue] {
        let (leftBehind, stale) = state.withLock { state in
            state.calls.append("StartNotify")
            return (state.sessionLeftBehind, state.staleTableError)
        }
        if leftBehind { throw Self.notifyAcquired }
        if let stale { throw Self.attError(stale) }
        return []
    }

    private func acquireNotify() async throws -> [DBusValue] {
        let (leftBehind, stale) = state.withLock { state in
            state.calls.append("AcquireNotify")
            defer { if state.staleTableError != nil { state.sessionLeftBehind = true } }
            return (state.sessionLeftBehind, state.staleTableError != nil)
        }
        if leftBehind { throw Self.notifyAcquired }
        if stale {
            // bluetoothd never answers; the caller's timeout ends the call
            try await Task.sleep(for: .seconds(30))
            return []
        }
        var pair: [Int32] = [0, 0]
        guard
            socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0
        else { throw DBusError.error(name: "org.bluez.Error.Failed", message: "socketpair: errno \(errno)") }
        state.withLock { $0.socket = pair[0] }
        return [.unixFD(DBusUnixFD(owning: pair[1])), .uint16(247)]
    }

    private static let notifyAcquired = DBusError.error(
        name: "org.bluez.Error.NotPermitted", message: "Notify acquired")
    private static func attError(_ code: UInt8) -> DBusError {
        .error(
            name: "org.bluez.Error.Failed",
            message: "Operation failed with ATT error: " + String(format: "0x%02x", code))
    }
}
