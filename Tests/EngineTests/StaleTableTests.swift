import DFUSimulator
import GATT
import GATTTesting
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// A central that lists the GATT table it kept of the device at the same address
/// (`KeptTables`), as bluetoothd did in the resource run of docs/reliability.md.
final class StaleTableTests: XCTestCase {
    /// Buttonless with bonds: the bootloader comes up at the application's address, where the
    /// central lists the application's table. The engine discards it once and finds the
    /// bootloader.
    func testABootloaderListedWithItsApplicationsTableIsDiscoveredAgain() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureAppBonded, accepting: package)
        let tables = KeptTables()
        let central = tables.central(over: harness.central)

        let (result, events) = await harness.update(package, through: central)

        XCTAssertEqual(result.outcome, .completed, EngineHarness.logs(events))
        XCTAssertEqual(tables.discarded, 1)
        XCTAssertTrue(
            EngineHarness.logs(events).contains("discovering them again"), EngineHarness.logs(events))
        harness.assertRuns(package)
    }

    /// The next update finds the application listed with its bootloader's table: the first use
    /// of a stale characteristic discards it and the update goes on after reconnecting, through
    /// the jump (the application's table stale again) to the end.
    func testAnApplicationListedWithItsBootloadersTableIsUpdatedAgain() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureAppBonded, accepting: package)
        let tables = KeptTables()
        let central = tables.central(over: harness.central)
        let (first, firstEvents) = await harness.update(package, through: central)
        XCTAssertEqual(first.outcome, .completed, EngineHarness.logs(firstEvents))

        var options = EngineHarness.testOptions()
        options.force = true
        let (second, events) = await harness.update(package, options: options, through: central)

        XCTAssertEqual(second.outcome, .completed, EngineHarness.logs(events))
        XCTAssertEqual(tables.discarded, 3)
        harness.assertRuns(package)
    }
}
