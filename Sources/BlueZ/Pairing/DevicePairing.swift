import DBus
import DFUSupport
import GATT

/// Pairing one connected device through the agent: `Device1.Pair` before anything else when
/// asked, otherwise once per connection after the device refused an operation for security
/// (devices may lock out after failed attempts: never a second try).
final class DevicePairing: Sendable {
    let agent: PairingAgent
    private let bus: BlueZBus
    private let path: String
    private let address: String
    private let attempted = Locked(false)

    init(agent: PairingAgent, bus: BlueZBus, path: String, address: String) {
        self.agent = agent
        self.bus = bus
        self.path = path
        self.address = address
        agent.answer(for: path, address: address)
    }

    /// Pairs unless bluetoothd holds a bond for the device already; throws
    /// `GATTError.securityFailed`.
    func pairUnlessPaired() async throws {
        guard try await !isPaired() else { return }
        attempted.withLock { $0 = true }
        try await pair()
    }

    /// After the device refused an operation for security: pairs, once per connection. Returns
    /// normally when the operation is worth its one more try; throws `GATTError.securityFailed`
    /// when it is not (paired already, or tried already).
    func pairAfterRefusal(of operation: String) async throws {
        let first = attempted.withLock { tried in
            defer { tried = true }
            return !tried
        }
        if try await isPaired() {
            throw GATTError.securityFailed(
                device: address, failure: first ? .bondLost : .securityRequired,
                reason: first
                    ? "\(operation) was refused although this host holds a bond for the device: the device "
                        + "lost its keys (reset or erased), or the bond is not authenticated (Just Works) and "
                        + "the device asks for a passkey"
                    : "\(operation) was refused again after pairing: the device asks for more security than "
                        + "this pairing gave (a passkey)")
        }
        guard first else {
            throw GATTError.securityFailed(
                device: address, failure: .securityRequired,
                reason: "\(operation) was refused for security after pairing failed once")
        }
        try await pair()
    }

    private func isPaired() async throws -> Bool {
        try await bus.isPaired(path, device: address)
    }

    private func pair() async throws {
        do {
            _ = try await bus.call(path, BlueZ.deviceInterface, "Pair", timeout: .seconds(60))
        } catch let error as DBusError where error.name == "org.bluez.Error.AlreadyExists" {
            return
        } catch let error as DBusError {
            throw pairingError(error, agentProblem: agent.takeProblem(for: path))
                ?? gattError(
                    error, "pairing with \(address)", device: address)
        } catch {
            throw gattError(error, "pairing with \(address)", device: address)
        }
    }

    /// What a failed `Device1.Pair` means (bluetoothd's device.c answers a failed bonding with
    /// one of these names); nil for a failure that is not about pairing (a lost link).
    func pairingError(_ error: DBusError, agentProblem: String?) -> GATTError? {
        let said = "bluetoothd: \(error.name.split(separator: ".").last ?? ""), \(error.message)"
        if let agentProblem {
            return .securityFailed(device: address, failure: .securityRequired, reason: agentProblem)
        }
        switch error.name {
        case "org.bluez.Error.AuthenticationFailed":
            guard let source = agent.passkeySource(for: address) else {
                return .securityFailed(
                    device: address, failure: .securityRequired,
                    reason: "pairing failed: the device asks for authenticated pairing (a passkey) and none "
                        + "was given (\(said))")
            }
            return .securityFailed(
                device: address, failure: .authenticationFailed,
                reason: "pairing failed its check: the passkey from \(source) is not the device's (\(said))")
        case "org.bluez.Error.AuthenticationRejected", "org.bluez.Error.AuthenticationCanceled",
            "org.bluez.Error.AuthenticationTimeout":
            return .securityFailed(
                device: address, failure: .pairingRefused, reason: "the device did not pair (\(said))")
        default:
            return nil
        }
    }
}
