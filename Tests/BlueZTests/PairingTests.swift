import DBus
import Foundation
import GATT
import TestSupport
import XCTest

@testable import BlueZ

/// Pairing through this program's own agent (docs/pairing.md), against a model of bluetoothd:
/// a device that refuses writes for security pairs once and the write is retried; every
/// failure has its own kind and names what is needed; no message holds a passkey.
final class PairingTests: TwoConnectionTestCase {
    let device = "00:AA:01:01:00:02"
    private let passkey: UInt32 = 314_159
    var directory: URL!
    /// Every message a failure produced, to be searched for passkeys.
    var messages: [String] = []

    override func setUp() async throws {
        try await super.setUp()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pairing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        for message in messages {
            XCTAssertFalse(
                message.contains("314159") || message.contains("271828"), "a passkey in: \(message)")
        }
        try? FileManager.default.removeItem(at: directory)
        try await super.tearDown()
    }

    func testTheAgentRegistersAsTheDefaultAgentWithTheCapabilityOfWhatItWasGiven() async throws {
        let bluetoothd = try await PairingBluetoothd(serving: server, passkey: passkey)
        _ = try await PairingAgent.register(
            on: BlueZBus(connection: client), settings: PairingSettings(passkey: .environment("X")))
        XCTAssertEqual(bluetoothd.calls, ["RegisterAgent", "RequestDefaultAgent"])
        XCTAssertEqual(bluetoothd.agent?.capability, "KeyboardOnly")
        XCTAssertEqual(bluetoothd.agent?.path, PairingAgent.path)
        XCTAssertEqual(PairingSettings().capability, "NoInputNoOutput")
        XCTAssertEqual(PairingSettings(acceptsNumericComparison: true).capability, "DisplayYesNo")
        XCTAssertEqual(
            PairingSettings(passkey: .environment("X"), acceptsNumericComparison: true).capability,
            "KeyboardDisplay")
    }

    /// bluetoothd asks its one default agent, the last registered, about every adapter's
    /// devices: with a central (and an agent) per adapter, the agent asked hands the request to
    /// the one whose central connected to the device, with that one's passkey source.
    func testTheLastRegisteredAgentAnswersForAnotherCentralsDevice() async throws {
        let bluetoothd = try await PairingBluetoothd(serving: server, passkey: passkey)
        let first = try await PairingAgent.register(
            on: BlueZBus(connection: client), settings: PairingSettings(passkey: .file(try file("314159"))))
        first.answer(for: PairingBluetoothd.devicePath, address: device)
        let other = try await bus.connect()
        defer { other.close() }
        let last = try await PairingAgent.register(
            on: BlueZBus(connection: other), settings: PairingSettings(passkey: .file(try file("271828"))))
        let answer = try await bluetoothd.callAgent(
            "RequestPasskey", [.objectPath(PairingBluetoothd.devicePath)])
        XCTAssertEqual(answer.first?.integerValue, Int64(passkey), "not the first agent's passkey")
        do {
            _ = try await bluetoothd.callAgent(
                "RequestPasskey", [.objectPath("/org/bluez/hci1/dev_00_AA_01_01_00_09")])
            XCTFail("a device no central of this program connected to was answered")
        } catch {}
        withExtendedLifetime((first, last)) {}
    }

    func testAWriteRefusedForSecurityPairsWithThePasskeyAndIsDoneAgain() async throws {
        let bluetoothd = try await PairingBluetoothd(serving: server, passkey: passkey)
        let characteristic = try await characteristic(PairingSettings(passkey: .file(try file("314159\n"))))
        try await characteristic.write([1], timeout: .seconds(5))
        XCTAssertEqual(
            bluetoothd.calls, ["RegisterAgent", "RequestDefaultAgent", "WriteValue", "Pair", "WriteValue"])
    }

    /// A fleet's device with a passkey source of its own: the agent asks it, not the settings'.
    func testADevicesOwnPasskeySourceStandsInForTheSettings() async throws {
        let bluetoothd = try await PairingBluetoothd(serving: server, passkey: passkey)
        var settings = PairingSettings(passkey: .file(try file("271828")))
        settings.passkeysPerDevice = true
        let characteristic = try await characteristic(settings, deviceSource: .file(try file("314159")))
        try await characteristic.write([1], timeout: .seconds(5))
        XCTAssertEqual(bluetoothd.calls.filter { $0 == "Pair" }.count, 1)
        var perDeviceOnly = PairingSettings()
        perDeviceOnly.passkeysPerDevice = true
        XCTAssertEqual(perDeviceOnly.capability, "KeyboardOnly")
    }

    /// Devices may lock out after failed attempts: one pairing, one clear failure.
    func testAWrongPasskeyFailsOnceAsAuthenticationFailed() async throws {
        let bluetoothd = try await PairingBluetoothd(serving: server, passkey: passkey)
        let characteristic = try await characteristic(PairingSettings(passkey: .file(try file("271828"))))
        let (failure, reason) = try await securityFailure {
            try await characteristic.write([1], timeout: .seconds(5))
        }
        XCTAssertEqual(failure, .authenticationFailed)
        XCTAssertTrue(reason.contains("the passkey from the passkey file"), reason)
        XCTAssertEqual(bluetoothd.calls.filter { $0 == "Pair" }.count, 1)
        // the next operation on the same link does not pair again
        _ = try await securityFailure { try await characteristic.write([2], timeout: .seconds(5)) }
        XCTAssertEqual(bluetoothd.calls.filter { $0 == "Pair" }.count, 1)
    }

    func testWithoutAPasskeyADeviceThatWantsOneFailsNamingWhatIsNeeded() async throws {
        let bluetoothd = try await PairingBluetoothd(serving: server, passkey: passkey)
        let characteristic = try await characteristic(PairingSettings())
        let (failure, reason) = try await securityFailure {
            try await characteristic.write([1], timeout: .seconds(5))
        }
        XCTAssertEqual(failure, .securityRequired)
        XCTAssertTrue(reason.contains("a passkey"), reason)
        XCTAssertEqual(bluetoothd.calls.filter { $0 == "Pair" }.count, 1)
    }

    func testJustWorksPairsADeviceThatWantsOnlyEncryption() async throws {
        let bluetoothd = try await PairingBluetoothd(
            serving: server, passkey: nil, needsAuthentication: false)
        try await characteristic(PairingSettings()).write([1], timeout: .seconds(5))
        XCTAssertEqual(bluetoothd.calls.suffix(3), ["WriteValue", "Pair", "WriteValue"])
    }

    func testARefusalAfterPairingIsNotPairedAgain() async throws {
        let bluetoothd = try await PairingBluetoothd(
            serving: server, passkey: nil, needsAuthentication: false, refusesAfterPairing: true)
        let characteristic = try await characteristic(PairingSettings())
        let (failure, reason) = try await securityFailure {
            try await characteristic.write([1], timeout: .seconds(5))
        }
        XCTAssertEqual(failure, .securityRequired)
        XCTAssertTrue(reason.contains("refused again after pairing"), reason)
        XCTAssertEqual(bluetoothd.calls.filter { $0 == "Pair" }.count, 1)
    }

    func testABondTheDeviceRefusesIsReportedAsLostWithoutPairing() async throws {
        let bluetoothd = try await PairingBluetoothd(
            serving: server, passkey: passkey, paired: true, refusesAfterPairing: true)
        let characteristic = try await characteristic(PairingSettings(passkey: .environment("UNUSED")))
        let (failure, _) = try await securityFailure {
            try await characteristic.write([1], timeout: .seconds(5))
        }
        XCTAssertEqual(failure, .bondLost)
        XCTAssertFalse(bluetoothd.calls.contains("Pair"))
    }

    func testAPasskeyFileOthersMayReadIsRefusedAndNamedInTheFailure() async throws {
        _ = try await PairingBluetoothd(serving: server, passkey: passkey)
        let path = try file("314159", permissions: 0o644)
        let characteristic = try await characteristic(PairingSettings(passkey: .file(path)))
        let (failure, reason) = try await securityFailure {
            try await characteristic.write([1], timeout: .seconds(5))
        }
        XCTAssertEqual(failure, .securityRequired)
        XCTAssertTrue(reason.contains("\(path) may be read by others than its owner: chmod 600 it"), reason)
    }

    func testWithoutAnAgentARefusalFailsAtOnce() async throws {
        let bluetoothd = try await PairingBluetoothd(serving: server, passkey: passkey)
        let (failure, reason) = try await securityFailure {
            try await self.characteristic(nil).write([1], timeout: .seconds(5))
        }
        XCTAssertEqual(failure, .securityRequired)
        XCTAssertTrue(reason.contains("needs a paired link"), reason)
        XCTAssertEqual(bluetoothd.calls, ["WriteValue"])
    }

    /// As the default agent it would be asked about any device: it answers only for its own.
    func testTheAgentRefusesDevicesThisProgramDidNotConnectTo() async throws {
        let bluetoothd = try await PairingBluetoothd(serving: server, passkey: passkey)
        // the connection holds the agent (its handlers hold it weakly: it goes with the central)
        let characteristic = try await characteristic(PairingSettings(passkey: .file(try file("314159"))))
        for (member, arguments) in [
            ("RequestPasskey", [DBusValue.objectPath("/org/bluez/hci0/dev_00_AA_01_01_00_09")]),
            ("RequestAuthorization", [.objectPath("/org/bluez/hci0/dev_00_AA_01_01_00_09")]),
        ] {
            do {
                _ = try await bluetoothd.callAgent(member, arguments)
                XCTFail("\(member) answered for another device")
            } catch let error as DBusError {
                XCTAssertEqual(error.name, "org.bluez.Error.Rejected")
            }
        }
        let answer = try await bluetoothd.callAgent(
            "RequestPasskey", [.objectPath(PairingBluetoothd.devicePath)])
        XCTAssertEqual(answer.first?.integerValue, Int64(passkey))
        withExtendedLifetime(characteristic) {}
    }

    func testNumericComparisonIsConfirmedOnlyWhenAccepted() async throws {
        let bluetoothd = try await PairingBluetoothd(serving: server, passkey: nil)
        let refusing = try await characteristic(PairingSettings())
        let confirmation = [DBusValue.objectPath(PairingBluetoothd.devicePath), .uint32(123_456)]
        do {
            _ = try await bluetoothd.callAgent("RequestConfirmation", confirmation)
            XCTFail("numeric comparison confirmed without --accept-numeric-comparison")
        } catch let error as DBusError {
            XCTAssertEqual(error.name, "org.bluez.Error.Rejected")
        }
        XCTAssertEqual(
            refusing.context.pairing?.agent.takeProblem(for: PairingBluetoothd.devicePath),
            "the device asks to compare numbers (numeric comparison), which was not accepted")
    }
}
