import DFUSimulator
import GATT
import MCUmgr
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// The one updater over both families' runs (docs/engine.md, "One shape for both protocols"):
/// each package's updater runs its own family, whose failures carry that family's advice.
final class PackageUpdaterTests: XCTestCase {
    static let device = DeviceIdentifier("C0:DE:00:00:00:10")

    /// The updater a package makes is its family's, for the device and with the options given.
    func testEachPackageMakesItsFamilysUpdater() throws {
        let central = try SimulatedCentral(devices: [])
        var options = DFUOptions()
        options.retries = 7
        let nordic = try TestPackages.secureApp().updater(
            central: central, device: Self.device, options: options)
        let smp = try MCUbootPackage(image: SMPUpdateTests.image("1.1.0"))
            .updater(central: central, device: Self.device, options: options)
        XCTAssertEqual((nordic as? DFUUpdater)?.options.retries, 7)
        XCTAssertEqual((smp as? SMPUpdater)?.options.retries, 7)
        XCTAssertEqual(nordic.device, Self.device)
        XCTAssertEqual(smp.device, Self.device)
    }

    /// A link lost for good (no retries) fails each family's update as `deviceDisconnected`, with
    /// its own family's advice: Nordic DFU's for a device that waits in its bootloader, SMP's for
    /// one that runs its image all along and resumes the upload.
    func testAFailureCarriesItsFamilysAdvice() async throws {
        var options = EngineHarness.testOptions()
        options.retries = 0
        options.smp.activation = .testOnly
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package, faults: [.disconnectAt(bytes: 5000)])
        let nordic = await package.updater(central: harness.central, device: harness.device, options: options)
            .run()
        let nordicFailure = try XCTUnwrap(nordic.failure)
        XCTAssertEqual(nordicFailure.error, .deviceDisconnected)
        XCTAssertEqual(nordicFailure.advice, DFUError.deviceDisconnected.advice)

        let device = SMPUpdateTests.device { $0.faults = [.disconnectAt(bytes: 9000)] }
        let smp = try await MCUbootPackage(image: SMPUpdateTests.image("1.1.0")).updater(
            central: SimulatedCentral(devices: [device]), device: .address(device.address), options: options
        ).run()
        let smpFailure = try XCTUnwrap(smp.failure)
        XCTAssertEqual(smpFailure.error, .deviceDisconnected)
        XCTAssertEqual(smpFailure.advice, DFUError.deviceDisconnected.smpAdvice(activation: .testOnly))
        XCTAssertNotEqual(smpFailure.advice, nordicFailure.advice)
    }
}
