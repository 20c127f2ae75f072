import DBus
import GATT
import TestSupport
import XCTest

@testable import BlueZ

/// What a peripheral (dfu-sim) pairs with: its flags and its agent.
final class PeripheralPairingTests: TwoConnectionTestCase {
    func testSecurityAddsBluetoothdsFlagsForEachUse() {
        let properties: CharacteristicProperties = [.read, .write, .writeWithoutResponse, .notify]
        XCTAssertEqual(LocalSecurity.open.flags(for: properties), [])
        XCTAssertEqual(
            LocalSecurity.encrypt.flags(for: properties), ["encrypt-read", "encrypt-write", "encrypt-notify"])
        XCTAssertEqual(
            LocalSecurity.authenticated.flags(for: [.writeWithoutResponse, .notify]),
            ["encrypt-authenticated-write", "encrypt-authenticated-notify"])
    }

    /// Centrals pair with the peripheral: its agent answers any device with the passkey.
    func testAPeripheralsAgentAnswersEveryDevice() async throws {
        let bluetoothd = try await PairingBluetoothd(serving: server, passkey: 271_828)
        let agent = try await PairingAgent.register(
            on: BlueZBus(connection: client), settings: PairingSettings(passkey: .environment("PATH")),
            answersAnyDevice: true)
        XCTAssertEqual(bluetoothd.calls, ["RegisterAgent", "RequestDefaultAgent"])
        do {
            _ = try await bluetoothd.callAgent(
                "RequestPasskey", [.objectPath("/org/bluez/hci1/dev_00_AA_01_01_00_09")])
            XCTFail("PATH is no passkey")
        } catch let error as DBusError {
            XCTAssertEqual(error.name, "org.bluez.Error.Rejected")
        }
        XCTAssertEqual(
            agent.takeProblem(for: "/org/bluez/hci1/dev_00_AA_01_01_00_09"),
            "the environment variable PATH does not hold a passkey: expected 6 digits (000000 to 999999)")
        _ = try await bluetoothd.callAgent(
            "RequestAuthorization", [.objectPath("/org/bluez/hci1/dev_00_AA_01_01_00_09")])
    }

    /// With `--pair`, bluetoothd asks the agent of the program that called Pair: the default
    /// agent stays another program's (a peripheral on the same bluetoothd).
    func testAnAgentThatPairsFirstLeavesTheDefaultAgentAlone() async throws {
        let bluetoothd = try await PairingBluetoothd(serving: server, passkey: nil)
        _ = try await PairingAgent.register(
            on: BlueZBus(connection: client), settings: PairingSettings(pairsFirst: true))
        XCTAssertEqual(bluetoothd.calls, ["RegisterAgent"])
    }
}
