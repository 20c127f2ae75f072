import Foundation
import MCUmgr
import SimulatorProcess
import XCTest

/// BlueZ's own `bluetoothctl`, a client this project did not write, pairs with `dfu-sim` served
/// with security on the same bluetoothd (docs/pairing.md, "`bluetoothctl` pairing with
/// `dfu-sim`"). Before pairing, the device refuses a subscription to its SMP characteristic;
/// after it, an SMP echo written there is answered, and bluetoothctl shows the bond.
final class BluetoothctlPairingTests: DFUThroughBlueZTestCase {
    /// bluetoothctl's session, ended when the test ends.
    private var session: BluetoothctlSession?
    /// Whether the test made the peripheral's adapter refuse bonds (undone when it ends).
    private var refusesBonds = false

    private let passkey = "314159"

    override func setUp() async throws {
        try await super.setUp()
        setenv("DFU_TEST_DEVICE_PASSKEY", passkey, 1)
    }

    override func tearDown() async throws {
        try await session?.quit()
        if refusesBonds { try await SystemTestEnvironment.setBondable(of: 1, true) }
        try await super.tearDown()
    }

    func testBluetoothctlPairsWithAnEncryptedDeviceWithJustWorks() async throws {
        let (simulator, address) = try await simulate("smp-app", ["--sim-security", "encrypt"])
        let bluetoothctl = try await connect(to: address, agent: "NoInputNoOutput")
        try await assertSubscribingIsRefused(bluetoothctl, simulator, address)
        try await SystemTestEnvironment.setBondable(of: 1, true)
        try bluetoothctl.send("pair \(address)")
        try await bluetoothctl.expect("Pairing successful")
        try await assertEchoIsAnswered(bluetoothctl, address)
    }

    /// Both agents `KeyboardOnly`: bluetoothd asks bluetoothctl's (that of the program calling
    /// `Pair`) for the central's side and dfu-sim's (the default) for the device's, and each
    /// enters the passkey (docs/pairing.md).
    func testBluetoothctlPairsWithAnAuthenticatedDeviceByItsPasskey() async throws {
        let (simulator, address) = try await serveAuthenticatedDevice()
        let bluetoothctl = try await connect(to: address, agent: "KeyboardOnly")
        try await assertSubscribingIsRefused(bluetoothctl, simulator, address)
        try await SystemTestEnvironment.setBondable(of: 1, true)
        try bluetoothctl.send("pair \(address)")
        try await bluetoothctl.expect("Enter passkey")
        try bluetoothctl.send(passkey)
        try await bluetoothctl.expect("Pairing successful")
        try await assertEchoIsAnswered(bluetoothctl, address)
    }

    func testAWrongPasskeyTypedIntoBluetoothctlFailsThePairing() async throws {
        let (_, address) = try await serveAuthenticatedDevice()
        let bluetoothctl = try await connect(to: address, agent: "KeyboardOnly")
        try await SystemTestEnvironment.setBondable(of: 1, true)
        try bluetoothctl.send("pair \(address)")
        try await bluetoothctl.expect("Enter passkey")
        try bluetoothctl.send("271828")
        let answer = try await bluetoothctl.expect(["Failed to pair", "Pairing successful"])
        XCTAssertEqual(answer, "Failed to pair", bluetoothctl.transcript)
        XCTAssertTrue(bluetoothctl.transcript.contains("AuthenticationFailed"), bluetoothctl.transcript)
        try bluetoothctl.send("info \(address)")
        try await bluetoothctl.expect("Paired: no")
    }

    /// Serves an SMP device that asks for an authenticated link, with the fixed passkey.
    private func serveAuthenticatedDevice() async throws -> (DFUSimProcess, String) {
        try await simulate(
            "smp-app", ["--sim-security", "authenticated", "--sim-passkey-env", "DFU_TEST_DEVICE_PASSKEY"])
    }

    /// Starts bluetoothctl with an agent of `agent`'s capability (registered, not the default:
    /// dfu-sim's is), and connects from the central's adapter to the device at `address`, which
    /// does not take a bond yet (its adapter not bondable: a device not in its pairing mode).
    private func connect(to address: String, agent: String) async throws -> BluetoothctlSession {
        try await SystemTestEnvironment.setBondable(of: 1, false)
        refusesBonds = true
        let bluetoothctl = try BluetoothctlSession(["--agent", agent])
        session = bluetoothctl
        try await bluetoothctl.expect("Agent registered")
        try bluetoothctl.send("select \(try await SystemTestEnvironment.address(of: 0))")
        try bluetoothctl.send("scan on")
        try await bluetoothctl.expect("Device \(address.uppercased())")
        try bluetoothctl.send("scan off")
        try bluetoothctl.send("connect \(address)")
        try await bluetoothctl.expect("Connection successful")
        try await bluetoothctl.expect("ServicesResolved: yes")
        return bluetoothctl
    }

    /// Subscribing to the SMP characteristic fails: bluetoothd's own attempt to pair for it
    /// (ATT insufficient encryption or authentication raises the link's security) is refused by
    /// the device, and the link drops before the subscription is made (5.66 then fails
    /// `StartNotify`; 5.82 keeps it pending, and subscribes once the link is paired). Returns once
    /// the device advertises again (btvirt shows a scanner only an advertiser that starts: a
    /// `pair` sent earlier may never find it).
    private func assertSubscribingIsRefused(
        _ bluetoothctl: BluetoothctlSession, _ simulator: DFUSimProcess, _ address: String
    ) async throws {
        try bluetoothctl.send("gatt.select-attribute \(SMPUUIDs.characteristic)")
        try bluetoothctl.send("gatt.notify on")
        let dropped = "Device \(address.uppercased()) Connected: no"
        let answer = try await bluetoothctl.expect([dropped, "Notify started"])
        XCTAssertEqual(answer, dropped, bluetoothctl.transcript)
        try bluetoothctl.send("info \(address)")
        try await bluetoothctl.expect("Paired: no")
        try await simulator.waitForAdvertising(count: 2)
    }

    /// Subscribes to the SMP characteristic, writes an SMP echo request (`{"d": "hi"}`) and waits
    /// for the device's answer (`{"r": "hi"}`) in a notification; then bluetoothctl lists the
    /// bond. (The characteristic is selected again: the refusal's link loss took the unpaired
    /// device's attributes with it.)
    private func assertEchoIsAnswered(_ bluetoothctl: BluetoothctlSession, _ address: String) async throws {
        try bluetoothctl.send("gatt.select-attribute \(SMPUUIDs.characteristic)")
        try bluetoothctl.send("gatt.notify on")
        try await bluetoothctl.expect("Notify started")
        let request = SMPRequest.echo("hi").frame(sequence: 1).encoded
        try bluetoothctl.send(
            "gatt.write \"\(request.map { String(format: "0x%02x", $0) }.joined(separator: " "))\"")
        // the answer's payload, {"r": "hi"} in CBOR, in bluetoothctl's dump of the notified value
        try await bluetoothctl.expect("a1 61 72 62 68 69")
        try bluetoothctl.send("info \(address)")
        try await bluetoothctl.expect("Paired: yes")
    }
}
