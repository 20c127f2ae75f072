import DBus
import DFUSupport
import GATT

/// This program's `org.bluez.Agent1` (BlueZ's doc/org.bluez.Agent.rst): bluetoothd asks it for
/// a passkey or a confirmation while pairing, whether `Device1.Pair` started the pairing or
/// bluetoothd did itself after a device refused a write for security. Registered as the default
/// agent so that the latter reaches it too, unless every device is paired with `Device1.Pair`
/// first (bluetoothd asks the agent of the program that called `Pair`, src/device.c), which
/// leaves another program's default agent in place (a peripheral served by the same
/// bluetoothd, as in the VM). It answers only for the devices this program connected to and
/// refuses every other request.
///
/// bluetoothd has one default agent, the last registered: with a central per adapter, each with
/// its agent, that one is asked for every adapter's devices when bluetoothd pairs on its own. So
/// an agent asked about a device it does not know hands the request to the live agent of this
/// process that answers for it (its passkey source, its settings), if any.
final class PairingAgent: Sendable {
    static let path = "/org/dfu_update/agent"
    static let managerInterface = "org.bluez.AgentManager1"
    static let interface = "org.bluez.Agent1"

    let settings: PairingSettings
    /// Whether it answers for every device (a peripheral's agent: centrals pair with it).
    let answersAnyDevice: Bool
    private let bus: BlueZBus
    /// Addresses of the devices it answers for, by object path.
    private let devices = Locked<[String: String]>([:])
    /// Passkey sources that stand in for `settings.passkey` for one device, by address.
    private let passkeys = Locked<[String: PasskeySource]>([:])
    /// Why it last refused a device's request (a passkey source that failed), by object path.
    private let problems = Locked<[String: String]>([:])

    /// This process's agents, while they live.
    private struct Sibling { weak var agent: PairingAgent? }
    private static let siblings = Locked<[ObjectIdentifier: Sibling]>([:])

    private init(bus: BlueZBus, settings: PairingSettings, answersAnyDevice: Bool) {
        self.bus = bus
        self.settings = settings
        self.answersAnyDevice = answersAnyDevice
        Self.siblings.withLock { $0[ObjectIdentifier(self)] = Sibling(agent: self) }
    }

    deinit {
        let key = ObjectIdentifier(self)
        Self.siblings.withLock { _ = $0.removeValue(forKey: key) }
    }

    /// Exports the agent on `bus` and registers it, as bluetoothd's default agent unless
    /// `settings.pairsFirst` (for a central).
    static func register(on bus: BlueZBus, settings: PairingSettings, answersAnyDevice: Bool = false)
        async throws -> PairingAgent
    {
        let agent = PairingAgent(bus: bus, settings: settings, answersAnyDevice: answersAnyDevice)
        do {
            try bus.connection.exportObject(at: path, interfaces: [agent.agentInterface()])
            _ = try await bus.call(
                "/org/bluez", managerInterface, "RegisterAgent",
                [.objectPath(path), .string(settings.capability)], timeout: .seconds(10))
            if answersAnyDevice || !settings.pairsFirst {
                _ = try await bus.call(
                    "/org/bluez", managerInterface, "RequestDefaultAgent", [.objectPath(path)],
                    timeout: .seconds(10))
            }
        } catch {
            throw gattError(error, "registering a pairing agent with bluetoothd", device: "agent")
        }
        return agent
    }

    /// Lets the agent answer for the device at `path`.
    func answer(for path: String, address: String) {
        devices.withLock { $0[path] = address }
    }

    /// Makes `source` (nil: the settings' own) the passkey source for the device at `address`.
    func usePasskey(_ source: PasskeySource?, for address: String) {
        passkeys.withLock { $0[address.uppercased()] = source }
    }

    /// Where the passkey for the device at `address` comes from, if anywhere.
    func passkeySource(for address: String) -> PasskeySource? {
        passkeys.withLock { $0[address.uppercased()] } ?? settings.passkey
    }

    /// Why the agent refused the device's last request, if it did; clears it.
    func takeProblem(for path: String) -> String? {
        problems.withLock { $0.removeValue(forKey: path) }
    }

    // MARK: - Agent1

    private func agentInterface() -> DBusInterface {
        DBusInterface(
            Self.interface,
            methods: [
                DBusMethod("Release") { _ in [] },
                DBusMethod("Cancel") { _ in [] },
                DBusMethod("RequestPinCode", in: "o", out: "s") { _ in throw Self.rejected("no PIN codes") },
                DBusMethod("DisplayPinCode", in: "os") { _ in throw Self.rejected("no PIN codes") },
                DBusMethod("RequestPasskey", in: "o", out: "u") { [weak self] call in
                    guard let self else { throw Self.rejected("gone") }
                    let (agent, address) = try self.answering(call)
                    return [.uint32(try await agent.passkey(call, address: address))]
                },
                // a passkey the device enters is not shown: nobody reads this program's screen
                DBusMethod("DisplayPasskey", in: "ouq") { _ in [] },
                DBusMethod("RequestConfirmation", in: "ou") { [weak self] call in
                    guard let self else { throw Self.rejected("gone") }
                    let (agent, _) = try self.answering(call)
                    guard agent.settings.acceptsNumericComparison else {
                        agent.record(
                            "the device asks to compare numbers (numeric comparison), which was not accepted",
                            call)
                        throw Self.rejected("numeric comparison is not accepted")
                    }
                    return []
                },
                DBusMethod("RequestAuthorization", in: "o") { [weak self] call in
                    guard let self else { throw Self.rejected("gone") }
                    _ = try self.answering(call)
                    return []
                },
                DBusMethod("AuthorizeService", in: "os") { _ in throw Self.rejected("no services") },
            ])
    }

    private func passkey(_ call: DBusMethodCall, address: String) async throws -> UInt32 {
        guard let source = passkeySource(for: address) else {
            record("the device asks for a passkey and none was given", call)
            throw Self.rejected("no passkey source")
        }
        do {
            return try await source.passkey(for: address)
        } catch {
            record("\(error)", call)
            throw Self.rejected("no passkey")
        }
    }

    /// The agent that answers the call (this one, or the sibling whose central connected to the
    /// device) and the device's address; refuses devices this program did not connect to.
    private func answering(_ call: DBusMethodCall) throws -> (PairingAgent, address: String) {
        guard let path = call.arguments.first?.objectPathValue else { throw Self.rejected("no device") }
        if let address = devices.withLock({ $0[path] }) { return (self, address) }
        if answersAnyDevice, let name = path.split(separator: "/").last, name.hasPrefix("dev_") {
            return (self, name.dropFirst(4).replacingOccurrences(of: "_", with: ":"))
        }
        let others = Self.siblings.withLock { $0.values.compactMap(\.agent) }
        for other in others where other !== self {
            if let address = other.devices.withLock({ $0[path] }) { return (other, address) }
        }
        throw Self.rejected("not a device this program updates")
    }

    private func record(_ problem: String, _ call: DBusMethodCall) {
        guard let path = call.arguments.first?.objectPathValue else { return }
        problems.withLock { $0[path] = problem }
    }

    static func rejected(_ why: String) -> DBusError {
        .error(name: "org.bluez.Error.Rejected", message: why)
    }
}
