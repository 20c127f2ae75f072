import DFUSimulator
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// Faults the simulated device injects, and how the engine copes: after every test the device
/// runs the new image or waits in its bootloader able to take the update again.
final class FaultTests: XCTestCase {
    func testSecureResumesAfterLinkDropsAndResendsAtMostTheCurrentObject() async throws {
        let package = try TestPackages.secureApp()
        let size = package.images[0].firmware.count
        for kind in [SimulatedDeviceKind.secure, .secureApp] {
            for offset in [0, 100, 4095, 4096, 5000, 8191, 8192, 10000, size - 1] {
                let harness = try EngineHarness(
                    kind, accepting: package, faults: [.disconnectAt(bytes: offset)])
                let (result, events) = await harness.update(package)
                let label = "\(kind) drop at \(offset)"
                XCTAssertEqual(result.outcome, .completed, "\(label): \(EngineHarness.logs(events))")
                harness.assertRuns(package)
                XCTAssertGreaterThanOrEqual(result.retries, 1, label)
                XCTAssertGreaterThanOrEqual(result.bytesSent, size, label)
                XCTAssertLessThanOrEqual(
                    result.bytesSent, size + 4096, "\(label): resent more than one object")
            }
        }
    }

    func testLegacyRestartsThePartAfterLinkDrops() async throws {
        let package = try TestPackages.legacyApp()
        let size = package.images[0].firmware.count
        for kind in [SimulatedDeviceKind.legacy, .legacyApp] {
            for offset in [0, 1000, 10000, size - 20] {
                let harness = try EngineHarness(
                    kind, accepting: package, faults: [.disconnectAt(bytes: offset)])
                let (result, events) = await harness.update(package)
                let label = "\(kind) drop at \(offset)"
                XCTAssertEqual(result.outcome, .completed, "\(label): \(EngineHarness.logs(events))")
                harness.assertRuns(package)
                XCTAssertGreaterThanOrEqual(result.retries, 1, label)
                XCTAssertGreaterThanOrEqual(
                    result.bytesSent, size + offset, "\(label): the part starts again")
            }
        }
    }

    func testLostNotificationsAreRecovered() async throws {
        let cases: [(SimulatedDeviceKind, DFUPackage, UInt16)] = [
            (.secure, try TestPackages.secureApp(), 0), (.secure, try TestPackages.secureApp(), 12),
            (.secureApp, try TestPackages.secureApp(), 0), (.legacy, try TestPackages.legacyApp(), 10),
            (.legacyApp, try TestPackages.legacyApp(), 10),
        ]
        for (kind, package, prn) in cases {
            for n in [1, 2, 3, 5, 8, 12] {
                let harness = try EngineHarness(kind, accepting: package, faults: [.dropNotification(n)])
                // A lost answer costs a timeout in real time; keep them short (the simulator
                // answers at once).
                var options = EngineHarness.testOptions(prn: prn)
                options.notificationTimeout = .milliseconds(400)
                options.responseTimeout = .milliseconds(800)
                let (result, events) = await harness.update(package, options: options)
                let label = "\(kind) PRN \(prn) notification \(n) lost"
                XCTAssertEqual(result.outcome, .completed, "\(label): \(EngineHarness.logs(events))")
                harness.assertRuns(package)
            }
        }
    }

    func testWrongChecksumsAreRetried() async throws {
        let package = try TestPackages.secureApp()
        for prn: UInt16 in [0, 12] {
            for n in 1...6 {
                let harness = try EngineHarness(.secure, accepting: package, faults: [.crcError(n)])
                let (result, events) = await harness.update(
                    package, options: EngineHarness.testOptions(prn: prn))
                XCTAssertEqual(
                    result.outcome, .completed, "PRN \(prn) crc-error=\(n): \(EngineHarness.logs(events))")
                harness.assertRuns(package)
            }
        }
    }

    func testRejectedConnectionsAreRetried() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package, faults: [.rejectConnect(2)])
        let (result, events) = await harness.update(package)
        XCTAssertEqual(result.outcome, .completed, EngineHarness.logs(events))
        harness.assertRuns(package)
    }

    func testTooManyRejectedConnectionsFailWithFailedToConnect() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package, faults: [.rejectConnect(5)])
        let (result, events) = await harness.update(package)
        XCTAssertEqual(result.failure?.error, .failedToConnect, EngineHarness.logs(events))
        XCTAssertTrue(result.failure?.message.contains(harness.device.description) ?? false)
        await harness.assertCanTakeUpdate(package)
    }

    func testSlowFlashStillCompletes() async throws {
        let package = try TestPackages.secureApp()
        for milliseconds in [150, 400] {
            let harness = try EngineHarness(
                .secure, accepting: package, faults: [.slowFlash(.milliseconds(milliseconds))])
            let (result, events) = await harness.update(package)
            XCTAssertEqual(
                result.outcome, .completed, "slow-flash=\(milliseconds): \(EngineHarness.logs(events))")
            harness.assertRuns(package)
        }
    }

    // MARK: Rejections

    func testHardwareVersionRejection() async throws {
        try await expectRejection(.remoteExtendedErrorHwVersionFailure) { $0.hardwareVersion = 51 }
    }

    func testSoftDeviceRejection() async throws {
        try await expectRejection(.remoteExtendedErrorSdVersionFailure) { $0.softDeviceID = 0x0101 }
    }

    /// The bootloader's settings, not the reported string, hold the version it protects.
    func testFirmwareVersionRejection() async throws {
        try await expectRejection(.remoteExtendedErrorFwVersionFailure) {
            $0.settingsApplicationVersion = 90000
        }
    }

    func testSignatureRejection() async throws {
        let keyURL = TestPackages.fixtures.appendingPathComponent("keys/dfu_test_key_public.pem")
        let key = try DFUPublicKey(contentsOf: keyURL)
        let unsigned = try TestPackages.fixture("secure/secure_app_4095_hex_unsigned_multi_sdreq.zip")
        try await expectRejection(.remoteExtendedErrorSignatureMissing, package: unsigned) {
            $0.publicKey = key
            $0.firmwareVersion = "0.0.1"
        }
    }

    func testSignedPackageIsAcceptedByTheKeyThatSignedIt() async throws {
        let keyURL = TestPackages.fixtures.appendingPathComponent("keys/dfu_test_key_public.pem")
        let key = try DFUPublicKey(contentsOf: keyURL)
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package) { $0.publicKey = key }
        let (result, events) = await harness.update(package)
        XCTAssertEqual(result.outcome, .completed, EngineHarness.logs(events))
        harness.assertRuns(package)
    }

    private func expectRejection(
        _ error: DFUError, package: DFUPackage? = nil,
        configure: @escaping (inout SimulatedDeviceConfiguration) -> Void
    ) async throws {
        let package = try package ?? TestPackages.secureApp()
        for kind in [SimulatedDeviceKind.secure, .secureApp] {
            let harness = try EngineHarness(kind, accepting: package, configure: configure)
            let (result, events) = await harness.update(package)
            XCTAssertEqual(result.failure?.error, error, "\(kind): \(EngineHarness.logs(events))")
            XCTAssertEqual(result.bytesSent, 0, "\(kind): no firmware goes out after a rejected init packet")
            XCTAssertEqual(harness.snapshot?.activations, 0, "\(kind)")
            XCTAssertTrue(result.failure?.message.contains(harness.device.description) ?? false)
        }
    }
}
