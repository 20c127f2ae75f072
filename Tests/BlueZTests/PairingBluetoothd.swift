import DBus
import Foundation
import Synchronization

/// A model of what bluetoothd does while a central pairs (src/agent.c, src/device.c,
/// src/gatt-client.c), exported as org.bluez on a test bus: the agent manager, one device whose
/// `Pair` asks the registered agent for a passkey (passkey entry; Just Works without one) and
/// one characteristic whose writes are refused with "Not paired" until the device is paired
/// with the authentication it asks for.
final class PairingBluetoothd: Sendable {
    static let devicePath = "/org/bluez/hci0/dev_00_AA_01_01_00_02"
    static let characteristicPath = devicePath + "/service000a/char000b"

    private struct State {
        var calls: [String] = []
        /// The registered agent: its owner's unique name, path and capability.
        var agent: (owner: String, path: String, capability: String)?
        var paired: Bool
    }
    private let state: Mutex<State>
    private let connection: DBusConnection
    /// The device's passkey; nil: it pairs with Just Works.
    let passkey: UInt32?
    /// Whether a write needs the link authenticated (a passkey), not only encrypted.
    let needsAuthentication: Bool
    /// Whether pairing succeeds, but the write is refused all the same (a device that wants more).
    let refusesAfterPairing: Bool

    /// The methods called, in order.
    var calls: [String] { state.withLock { $0.calls } }
    var agent: (owner: String, path: String, capability: String)? { state.withLock { $0.agent } }

    init(
        serving connection: DBusConnection, passkey: UInt32?, paired: Bool = false,
        needsAuthentication: Bool = true, refusesAfterPairing: Bool = false
    ) async throws {
        self.connection = connection
        self.passkey = passkey
        self.needsAuthentication = needsAuthentication
        self.refusesAfterPairing = refusesAfterPairing
        state = Mutex(State(paired: paired))
        try await connection.requestName("org.bluez")
        try connection.exportObject(
            at: "/org/bluez",
            interfaces: [
                DBusInterface(
                    "org.bluez.AgentManager1",
                    methods: [
                        DBusMethod("RegisterAgent", in: "os") { [self] call in
                            state.withLock {
                                $0.calls.append("RegisterAgent")
                                $0.agent = (
                                    call.sender ?? "", call.arguments[0].stringValue ?? "",
                                    call.arguments[1].stringValue ?? ""
                                )
                            }
                            return []
                        },
                        DBusMethod("RequestDefaultAgent", in: "o") { [self] _ in record("RequestDefaultAgent")
                        },
                    ])
            ])
        try connection.exportObject(
            at: Self.devicePath,
            interfaces: [
                DBusInterface(
                    "org.bluez.Device1", methods: [DBusMethod("Pair") { [self] _ in try await pair() }],
                    properties: [DBusProperty("Paired", value: .boolean(paired))])
            ])
        try connection.exportObject(
            at: Self.characteristicPath,
            interfaces: [
                DBusInterface(
                    "org.bluez.GattCharacteristic1",
                    methods: [
                        DBusMethod("WriteValue", in: "aya{sv}") { [self] _ in
                            record("WriteValue")
                            guard state.withLock({ $0.paired }), !refusesAfterPairing else {
                                throw DBusError.error(
                                    name: "org.bluez.Error.NotPermitted", message: "Not paired")
                            }
                            return []
                        }
                    ])
            ])
    }

    /// Calls the registered agent as bluetoothd does.
    func callAgent(_ member: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
        guard let agent else { throw DBusError.error(name: "org.bluez.Error.Failed", message: "No agent") }
        return try await connection.call(
            destination: agent.owner, path: agent.path, interface: "org.bluez.Agent1", member: member,
            arguments: arguments)
    }

    private func pair() async throws -> [DBusValue] {
        record("Pair")
        let capability = agent?.capability ?? "NoInputNoOutput"
        if let passkey, capability != "NoInputNoOutput" {
            let answer: [DBusValue]
            do {
                answer = try await callAgent("RequestPasskey", [.objectPath(Self.devicePath)])
            } catch {
                throw DBusError.error(
                    name: "org.bluez.Error.AuthenticationCanceled", message: "Authentication Canceled")
            }
            guard answer.first?.integerValue == Int64(passkey) else {
                throw DBusError.error(
                    name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed")
            }
        } else if needsAuthentication {
            // the kernel's SMP: Just Works cannot meet a device that requires MITM protection
            throw DBusError.error(
                name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed")
        }
        state.withLock { $0.paired = true }
        try connection.setProperty(
            "Paired", interface: "org.bluez.Device1", path: Self.devicePath, to: .boolean(true))
        return []
    }

    @discardableResult
    private func record(_ call: String) -> [DBusValue] {
        state.withLock { $0.calls.append(call) }
        return []
    }
}
