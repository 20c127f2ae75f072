import DFUSimulator
import DFUSupport
import GATT
import GATTTesting
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// The answer to the request that activates a part is lost (the device resets with the link):
/// the engine looks at the device before it sends anything again, completes once it sees the
/// package running, and otherwise says precisely that the activation is not confirmed. A device
/// is never updated twice with one package.
final class ActivationConfirmationTests: XCTestCase {
    /// Options whose lost answers cost little real time (the simulator answers at once).
    private func options(prn: UInt16? = nil) -> DFUOptions {
        var options = EngineHarness.testOptions(prn: prn)
        options.notificationTimeout = .milliseconds(400)
        options.responseTimeout = .milliseconds(800)
        return options
    }

    func testALostLastAnswerOfAnyPartEndsWithOneActivationOfEachPart() async throws {
        let cases: [(SimulatedDeviceKind, DFUPackage)] = [
            (.secure, try TestPackages.secureApp()), (.secureApp, try TestPackages.secureApp()),
            (.secureAppBonded, try TestPackages.secureApp()), (.secureApp, try TestPackages.secureSDBLApp()),
            (.legacy, try TestPackages.legacyApp()), (.legacyApp, try TestPackages.legacyApp()),
            (.legacyApp, try TestPackages.legacySDBLApp()),
        ]
        for (kind, package) in cases {
            for part in 1...package.images.count {
                let harness = try EngineHarness(kind, accepting: package, faults: [.dropFinalAnswer(part)])
                let (result, events) = await harness.update(package, options: options())
                let label = "\(kind) \(package.name), answer to part \(part) lost"
                XCTAssertEqual(result.outcome, .completed, "\(label): \(EngineHarness.logs(events))")
                harness.assertRuns(package)
                XCTAssertEqual(harness.snapshot?.activations, package.images.count, label)
                XCTAssertEqual(result.partsActivated, package.images.count, label)
                if package.format == .secure {
                    // the part whose answer was lost is not sent again
                    let total = package.images.map(\.firmware.count).reduce(0, +)
                    XCTAssertLessThanOrEqual(result.bytesSent, total + 4096, "\(label): \(result.bytesSent)")
                }
            }
        }
    }

    /// Issue 25's command: a checksum error, then the answers to the last Execute lost, at one
    /// packet per receipt. The device activates the image once and the update completes.
    func testTheIssuesCommandCompletesWithOneActivation() async throws {
        let package = try TestPackages.fixture("secure/secure_app_4096_bin_signed.zip")
        var options = options(prn: 1)
        options.force = true
        for run in 1...20 {
            let harness = try EngineHarness(
                .secure, accepting: package,
                faults: [.crcError(2), .dropNotification(25), .dropNotification(28)]
            ) { $0.hardwareVersion = 52 }
            let (result, events) = await harness.update(package, options: options)
            XCTAssertEqual(result.outcome, .completed, "run \(run): \(EngineHarness.logs(events))")
            XCTAssertEqual(harness.snapshot?.activations, 1, "run \(run)")
            harness.assertRuns(package)
        }
    }

    func testAnApplicationThatRunsAnotherVersionIsNotConfirmedAndNothingIsSentAgain() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package, faults: [.dropFinalAnswer(1)])
        var options = options()
        options.packageVersion = "9.9.9"
        let (result, events) = await harness.update(package, options: options)
        let failure = try XCTUnwrap(result.failure, EngineHarness.logs(events))
        XCTAssertEqual(failure.error, .activationNotConfirmed)
        XCTAssertTrue(failure.detail.contains("runs 2.7.31, not the package's 9.9.9"), failure.message)
        XCTAssertEqual(harness.snapshot?.activations, 1)
        // resends of lost packets aside, the image went once
        XCTAssertLessThan(result.bytesSent, 2 * package.images[0].firmware.count, "sent again")
        XCTAssertEqual(result.partsActivated, 1)
    }

    func testAnApplicationWithoutAVersionIsNotConfirmed() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package, faults: [.dropFinalAnswer(1)])
        var options = options()
        options.versionCharacteristic = BluetoothUUID(short: 0x2A28)  // the simulator has none
        let (result, events) = await harness.update(package, options: options)
        let failure = try XCTUnwrap(result.failure, EngineHarness.logs(events))
        XCTAssertEqual(failure.error, .activationNotConfirmed)
        XCTAssertTrue(failure.detail.contains("does not report its version"), failure.message)
        XCTAssertEqual(harness.snapshot?.activations, 1)
    }

    /// After a reset that activated a part, the bootloader copies it into place before the
    /// device advertises again: the search for the device gives it the scan timeout on top of
    /// that copy (a 400 KiB application takes longer to copy than the scan timeout alone).
    func testTheSearchAfterAnActivationWaitsForTheImageCopy() async throws {
        let cases: [(SimulatedDeviceKind, DFUPackage, [SimulatedFault], activatedPart: Int)] = [
            // the answer lost: the engine looks for the application
            (.secureApp, try TestPackages.secureApp(), [.dropFinalAnswer(1)], 0),
            // between parts: the bootloader comes back once the system part is in place
            (.secureApp, try TestPackages.secureSDBLApp(), [], 0),
        ]
        for (kind, package, faults, part) in cases {
            let harness = try EngineHarness(kind, accepting: package, faults: faults)
            let windows = Locked<[Duration]>([])
            let central = FakeCentral(harness.central) { filter, timeout, central in
                windows.withLock { $0.append(timeout) }
                return central.scan(filter, timeout: timeout)
            }
            var options = options()
            options.bootloaderScanTimeout = .milliseconds(600)
            let (result, events) = await harness.update(package, options: options, through: central)
            XCTAssertEqual(result.outcome, .completed, "\(package.name): \(EngineHarness.logs(events))")
            let copy = NRF52Flash.copyTime(bytes: package.images[part].firmware.count)
            let longest = try XCTUnwrap(windows.withLock { $0.max() }, "\(package.name): no scan")
            // the window is measured from the search's start: a little of it may be spent
            let window = options.bootloaderScanTimeout + copy
            XCTAssertGreaterThan(longest, window - .milliseconds(150), package.name)
            XCTAssertLessThanOrEqual(longest, window, package.name)
        }
    }

    /// A device that does not come back after the lost answer: not confirmed, each place it
    /// was looked for named once, and nothing sent again.
    func testADeviceThatDoesNotComeBackIsNotConfirmedAndNamesEachAddressOnce() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secure, accepting: package, faults: [.dropFinalAnswer(1)])
        let central = FakeCentral.vanishing(harness.central, afterConnections: 1)
        var options = options()
        options.bootloaderScanTimeout = .milliseconds(600)
        let (result, events) = await harness.update(package, options: options, through: central)
        let failure = try XCTUnwrap(result.failure, EngineHarness.logs(events))
        XCTAssertEqual(failure.error, .activationNotConfirmed)
        let addresses = failure.detail.split(separator: " ").filter { $0.filter { $0 == ":" }.count == 5 }
        XCTAssertFalse(addresses.isEmpty, failure.detail)
        XCTAssertEqual(Set(addresses).count, addresses.count, "an address named twice: \(failure.detail)")
        XCTAssertEqual(harness.snapshot?.activations, 1)
        // resends of lost packets aside, the image went once
        XCTAssertLessThan(result.bytesSent, 2 * package.images[0].firmware.count, "sent again")
    }

    /// A device lost after its system part: the result counts that part as activated, so that a
    /// retry of the whole update (the fleet's) sends the application only.
    func testPartsActivatedCountsWhatTheDeviceTook() async throws {
        let package = try TestPackages.secureSDBLApp()
        let harness = try EngineHarness(.secureApp, accepting: package)
        // the application, then its bootloader for part 1; gone before part 2
        let central = FakeCentral.vanishing(harness.central, afterConnections: 2)
        var options = options()
        options.bootloaderScanTimeout = .milliseconds(600)
        let (result, events) = await harness.update(package, options: options, through: central)
        XCTAssertEqual(result.failure?.error, .failedToConnect, EngineHarness.logs(events))
        XCTAssertEqual(result.partsActivated, 1)
        XCTAssertEqual(harness.snapshot?.activations, 1)
        let rest = package.droppingParts(result.partsActivated)
        XCTAssertEqual(rest.images.map(\.kind), [.application])
        XCTAssertEqual(rest.applicationVersion, package.applicationVersion)
    }

    /// A forced update whose last answer is lost is not forced a second time: the engine reads
    /// the version and completes.
    func testAForcedUpdateIsNotRepeatedAfterItsActivation() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package, faults: [.dropFinalAnswer(1)]) {
            $0.firmwareVersion = "2.7.31"
        }
        var options = options()
        options.force = true
        let (result, events) = await harness.update(package, options: options)
        XCTAssertEqual(result.outcome, .completed, EngineHarness.logs(events))
        XCTAssertEqual(harness.snapshot?.activations, 1)
    }
}
