import DFUSimulator
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// Version first: the device's firmware version against the package's.
final class VersionCheckTests: XCTestCase {
    func testVersionsParseAsNrfutilNumbersThem() {
        XCTAssertEqual(DFUFirmwareVersion("2.7.31")?.number, 20731)
        XCTAssertEqual(DFUFirmwareVersion("20731")?.number, 20731)
        XCTAssertEqual(DFUFirmwareVersion("1.2")?.number, 10200)
        XCTAssertEqual(DFUFirmwareVersion("v1.2.0-rc1")?.number, 10200)
        XCTAssertEqual(DFUFirmwareVersion(" 1.0.0\0")?.number, 10000)
        XCTAssertNil(DFUFirmwareVersion("1.100.0"))
        XCTAssertNil(DFUFirmwareVersion("a.b.c"))
        XCTAssertNil(DFUFirmwareVersion(""))
        XCTAssertNil(DFUFirmwareVersion("1..2"))
        XCTAssertEqual(DFUFirmwareVersion(number: 20731).description, "2.7.31")
    }

    func testDecisions() {
        let v130 = DFUFirmwareVersion("1.3.0")
        XCTAssertEqual(DFUVersionCheck(installed: "1.2.0", package: v130, force: false).decision, .update)
        XCTAssertEqual(DFUVersionCheck(installed: "1.3.0", package: v130, force: false).decision, .skip)
        XCTAssertEqual(DFUVersionCheck(installed: "2.0.0", package: v130, force: false).decision, .skip)
        XCTAssertEqual(DFUVersionCheck(installed: "1.3.0", package: v130, force: true).decision, .forced)
        XCTAssertEqual(DFUVersionCheck(installed: "1.2.0", package: v130, force: true).decision, .update)
        XCTAssertEqual(DFUVersionCheck(installed: nil, package: v130, force: false).decision, .unknown)
        XCTAssertEqual(DFUVersionCheck(installed: "banana", package: v130, force: false).decision, .unknown)
        XCTAssertEqual(DFUVersionCheck(installed: "1.2.0", package: nil, force: false).decision, .unknown)
    }

    func testDeviceIsNewerOnlyWhenBothVersionsParseAndTheInstalledOneIsHigher() {
        let v130 = DFUFirmwareVersion("1.3.0")
        XCTAssertTrue(DFUVersionCheck(installed: "v2.0.0-rc1", package: v130, force: false).deviceIsNewer)
        XCTAssertFalse(DFUVersionCheck(installed: "1.3.0", package: v130, force: false).deviceIsNewer)
        XCTAssertFalse(DFUVersionCheck(installed: "1.2.0", package: v130, force: false).deviceIsNewer)
        XCTAssertFalse(DFUVersionCheck(installed: "banana", package: v130, force: false).deviceIsNewer)
        XCTAssertFalse(DFUVersionCheck(installed: "2.0.0", package: nil, force: false).deviceIsNewer)
    }

    func testUpToDateDeviceIsSkippedWithoutSendingAnything() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package) { $0.firmwareVersion = "2.7.31" }
        let (result, events) = await harness.update(package)
        XCTAssertEqual(result.outcome, .skipped, EngineHarness.logs(events))
        XCTAssertEqual(result.bytesSent, 0)
        XCTAssertEqual(
            events.versionChecks, [DFUVersionCheck(installed: "2.7.31", package: "2.7.31", decision: .skip)])
        XCTAssertFalse(events.states.contains(.enablingDfuMode))
        XCTAssertEqual(harness.snapshot?.mode, .application)
        XCTAssertEqual(harness.snapshot?.activations, 0)
    }

    /// A bootloader checks the application version its settings hold, 0 unless an update or
    /// `nrfutil settings generate` wrote one: a low package version completes; settings above it
    /// refuse the downgrade (ext error 05) before any firmware goes out.
    func testTheBootloaderChecksItsSettingsVersion() async throws {
        let package = try TestPackages.fixture("secure/secure_app_20_hex_signed.zip")  // fw_version 2
        let fresh = try EngineHarness(.secure, accepting: package) { $0.firmwareVersion = "1.0.0" }
        let (completed, events) = await fresh.update(package)
        XCTAssertEqual(completed.outcome, .completed, EngineHarness.logs(events))
        fresh.assertRuns(package)

        let told = try EngineHarness(.secure, accepting: package) { $0.settingsApplicationVersion = 3 }
        let (refused, _) = await told.update(package)
        XCTAssertEqual(refused.failure?.error, .remoteExtendedErrorFwVersionFailure)
        XCTAssertEqual(refused.bytesSent, 0)
        XCTAssertEqual(told.snapshot?.mode, .bootloader)
    }

    /// Issue 38 item 7: an application reporting a newer string than the package says nothing of
    /// the bootloader's settings, so `--force` sends; the bootloader alone decides.
    func testForcedUpdateIsSentWhateverTheReportedVersionSays() async throws {
        let package = try TestPackages.secureApp()  // fw_version 20731, not a debug init packet
        var options = EngineHarness.testOptions()
        options.force = true
        let taken = try EngineHarness(.secureApp, accepting: package) { $0.firmwareVersion = "3.0.0" }
        let (completed, events) = await taken.update(package, options: options)
        XCTAssertEqual(events.versionChecks.map(\.decision), [.forced])
        XCTAssertEqual(completed.outcome, .completed, EngineHarness.logs(events))
        taken.assertRuns(package)

        let protected = try EngineHarness(.secureApp, accepting: package) {
            $0.firmwareVersion = "3.0.0"
            $0.settingsApplicationVersion = 30000
        }
        let (refused, refusal) = await protected.update(package, options: options)
        XCTAssertEqual(
            refused.failure?.error, .remoteExtendedErrorFwVersionFailure, EngineHarness.logs(refusal))
        XCTAssertTrue(refusal.states.contains(.starting), "the init packet went to the bootloader")
        XCTAssertEqual(protected.snapshot?.activations, 0)
    }

    func testOlderDeviceIsUpdated() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package) { $0.firmwareVersion = "2.7.30" }
        let (result, events) = await harness.update(package)
        XCTAssertEqual(result.outcome, .completed, EngineHarness.logs(events))
        XCTAssertEqual(events.versionChecks.map(\.decision), [.update])
        harness.assertRuns(package)
    }

    func testForceOverridesTheSkip() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package) { $0.firmwareVersion = "2.7.31" }
        var options = EngineHarness.testOptions()
        options.force = true
        let (_, events) = await harness.update(package, options: options)
        XCTAssertEqual(events.versionChecks.map(\.decision), [.forced])
        XCTAssertTrue(events.states.contains(.starting), "a forced update goes ahead")
    }

    func testUserStatedPackageVersionWins() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package) { $0.firmwareVersion = "3.0.0" }
        var options = EngineHarness.testOptions()
        options.packageVersion = "3.0.0"
        let (result, events) = await harness.update(package, options: options)
        XCTAssertEqual(result.outcome, .skipped)
        XCTAssertEqual(events.versionChecks.first?.package, "3.0.0")
    }

    func testDeviceInItsBootloaderHasNoVersionAndIsUpdated() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secure, accepting: package)
        let (result, events) = await harness.update(package)
        XCTAssertEqual(events.versionChecks.map(\.decision), [.unknown])
        XCTAssertEqual(result.outcome, .completed)
    }
}
