import DFUSimulator
import GATT
import GATTTesting
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// Secure DFU buttonless with bonds (docs/nordic-dfu.md, "Buttonless with bonds"): the
/// application's 8EC90004 characteristic and its bootloader take writes on an encrypted link
/// only; the bootloader keeps the application's address and the bond the application handed it.
final class BondedButtonlessTests: XCTestCase {
    func testAnApplicationWithBondsIsUpdatedThroughItsBootloaderAtTheSameAddressOnTheBond() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureAppBonded, accepting: package)

        let (result, events) = await harness.update(package)

        XCTAssertEqual(result.outcome, .completed, EngineHarness.logs(events))
        harness.assertRuns(package)
        XCTAssertEqual(harness.snapshot?.address, harness.configuration.address.description)
        XCTAssertTrue(harness.central.holdsBond(with: harness.device), "the central paired (Just Works)")
        XCTAssertEqual(harness.snapshot?.holdsBond, true, "the device keeps the bond across its bootloader")
    }

    /// Both sides keep the bond: a second update encrypts with it, without pairing again.
    func testASecondUpdateEncryptsWithTheBondBothSidesKept() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureAppBonded, accepting: package)
        let (first, firstEvents) = await harness.update(package)
        XCTAssertEqual(first.outcome, .completed, EngineHarness.logs(firstEvents))

        var options = EngineHarness.testOptions()
        options.force = true
        let (second, events) = await harness.update(package, options: options)

        XCTAssertEqual(second.outcome, .completed, EngineHarness.logs(events))
        harness.assertRuns(package)
    }

    /// The device erased its bonds; this host still holds its side: the encryption is refused
    /// (key missing), the update fails at once with `bondLost` and leaves no link up.
    func testADeviceThatLostItsBondFailsWithBondLostAndNoLinkLeftUp() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureAppBonded, accepting: package)
        let (first, _) = await harness.update(package)
        XCTAssertEqual(first.outcome, .completed)
        harness.central.eraseBonds(of: harness.device)
        let attempts = harness.snapshot?.connectionAttempts ?? 0

        var options = EngineHarness.testOptions()
        options.force = true
        let (result, events) = await harness.update(package, options: options)

        XCTAssertEqual(result.failure?.error, .bondLost, EngineHarness.logs(events))
        XCTAssertTrue(result.failure?.message.contains("key missing") == true, result.failure?.message ?? "")
        XCTAssertEqual(harness.snapshot?.connectionAttempts, attempts + 1, "one connection, no retry")
        XCTAssertEqual(harness.snapshot?.mode, .application, "the device stays in its application")
        let link = try await harness.central.connect(harness.device, timeout: .seconds(1))
        await link.disconnect()
    }

    /// This host lost its side of the bond (removed, as a run that did not keep it does); the
    /// device refuses to pair again: `pairingRefused`, no link left up.
    func testACentralThatLostItsBondIsRefusedAndLeavesNoLinkUp() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureAppBonded, accepting: package)
        let (first, _) = await harness.update(package)
        XCTAssertEqual(first.outcome, .completed)
        harness.central.removeBond(with: harness.device)

        var options = EngineHarness.testOptions()
        options.force = true
        let (result, events) = await harness.update(package, options: options)

        XCTAssertEqual(result.failure?.error, .pairingRefused, EngineHarness.logs(events))
        let link = try await harness.central.connect(harness.device, timeout: .seconds(1))
        await link.disconnect()
    }

    /// Through a central that kept the application's table and holds the bond (bluetoothd): the
    /// bootloader at the same address is listed with the application's services until its
    /// Service Changed; the engine waits for it on the link instead of dropping the table it
    /// cannot drop (a paired device's).
    func testTheBootloadersServiceChangedReplacesTheApplicationsTableOnTheLink() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureAppBonded, accepting: package)
        let tables = KeptTables(bonded: true)
        let central = tables.central(over: harness.central)

        let (result, events) = await harness.update(package, through: central)

        XCTAssertEqual(result.outcome, .completed, EngineHarness.logs(events))
        XCTAssertEqual(tables.discarded, 0)
        XCTAssertTrue(
            EngineHarness.logs(events).contains("waiting for Service Changed"), EngineHarness.logs(events))
        harness.assertRuns(package)
    }

    /// The application answers Not Bonded (`20 01 07`, `ble_dfu_bonded.c`) to a peer it holds no
    /// bond for: the advice names the option that pairs.
    func testNotBondedAdviceNamesThePairingOption() {
        XCTAssertTrue(DFUError.remoteButtonlessDFUNotBonded.advice.contains("--pair"))
    }
}
