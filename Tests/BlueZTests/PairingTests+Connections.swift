import Foundation
import GATT
import XCTest

@testable import BlueZ

/// How `PairingTests` make a connection through an agent and read the failures it gives.
extension PairingTests {
    /// A characteristic of a new connection to the model's device, through an agent with
    /// `settings` (none when nil), which asks `deviceSource` for this device's passkey if given.
    func characteristic(_ settings: PairingSettings?, deviceSource: PasskeySource? = nil) async throws
        -> BlueZCharacteristic
    {
        let bus = BlueZBus(connection: client)
        let link = LinkState()
        var agent: PairingAgent?
        if let settings { agent = try await PairingAgent.register(on: bus, settings: settings) }
        // in lower case: the agent knows an address in any case
        agent?.usePasskey(deviceSource, for: device.lowercased())
        let context = CharacteristicContext(
            bus: bus, link: link, device: device, devicePath: PairingBluetoothd.devicePath,
            options: BlueZCentral.Options(),
            pendingCommands: CommandWindow(limit: 1, bus: bus, link: link, device: device),
            pairing: agent.map {
                DevicePairing(agent: $0, bus: bus, path: PairingBluetoothd.devicePath, address: device)
            })
        return BlueZCharacteristic(
            context: context, path: PairingBluetoothd.characteristicPath,
            uuid: BluetoothUUID("da2e7828-fbce-4e01-ae9e-261174997c48")!,
            serviceUUID: BluetoothUUID("8d53dc1d-1db7-4cd3-868b-8a527460aa84")!, properties: [.write])
    }

    /// The kind and reason of the `GATTError.securityFailed` that `operation` throws.
    func securityFailure(_ operation: () async throws -> Void) async throws
        -> (GATTSecurityFailure, String)
    {
        do {
            try await operation()
        } catch GATTError.securityFailed(let device, let failure, let reason) {
            XCTAssertEqual(device, self.device)
            messages.append(reason)
            messages.append(
                GATTError.securityFailed(device: device, failure: failure, reason: reason).description)
            return (failure, reason)
        }
        XCTFail("no security failure")
        return (.securityRequired, "")
    }

    /// A passkey file (by default readable by its owner only).
    func file(_ text: String, permissions: Int = 0o600) throws -> String {
        let path = directory.appendingPathComponent("passkey-\(UUID().uuidString)").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)), path)
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
        return path
    }
}
