import DFUSimulator
import XCTest

@testable import NordicDFU

/// {Legacy, Secure} × {application, SD+BL, SD+BL+application} × {PRN 0, 1, 12} × {buttonless
/// from the application, already in the bootloader}: every combination completes and the device
/// runs what was sent.
final class UpdateMatrixTests: XCTestCase {
    enum Contents: CaseIterable {
        case application
        case softdeviceBootloader
        case softdeviceBootloaderApplication
    }

    func testSecureMatrix() async throws {
        for contents in Contents.allCases {
            let package = try securePackage(contents)
            for kind in [SimulatedDeviceKind.secureApp, .secure] {
                for prn: UInt16 in [0, 1, 12] {
                    try await check(
                        package, kind: kind, prn: prn, label: "secure \(contents) \(kind) PRN \(prn)")
                }
            }
        }
    }

    func testLegacyMatrix() async throws {
        for contents in Contents.allCases {
            let package = try legacyPackage(contents)
            for kind in [SimulatedDeviceKind.legacyApp, .legacy] {
                for prn: UInt16 in [0, 1, 12] {
                    try await check(
                        package, kind: kind, prn: prn, label: "legacy \(contents) \(kind) PRN \(prn)")
                }
            }
        }
    }

    func testBondedButtonlessKeepsTheAddress() async throws {
        let package = try TestPackages.secureApp()
        try await check(package, kind: .secureAppBonded, prn: 0, label: "secure bonded")
    }

    /// When the bootloader refuses the system part's init packet (here: that bootloader version
    /// is installed already) and an application part follows, the engine sends the application.
    func testRefusedSystemPartSkipsToTheApplication() async throws {
        let package = try TestPackages.secureSDBLApp()
        let harness = try EngineHarness(.secureApp, accepting: package)
        let (first, firstEvents) = await harness.update(package)
        XCTAssertEqual(first.outcome, .completed, EngineHarness.logs(firstEvents))
        var options = EngineHarness.testOptions()
        options.force = true
        let (second, events) = await harness.update(package, options: options)
        XCTAssertEqual(second.outcome, .completed, EngineHarness.logs(events))
        let application = package.images[1].firmware.count
        XCTAssertGreaterThanOrEqual(second.bytesSent, application, "the application is sent")
        XCTAssertLessThanOrEqual(
            second.bytesSent, application + Self.learningAllowance, "only the application is sent")
        XCTAssertTrue(EngineHarness.logs(events).contains("system image was refused"))
        harness.assertRuns(package)
    }

    /// Without a preparation delay by default, the first page erase may cost packets of the
    /// first data object (a lost tail, then the object again when the resent tail is also cut),
    /// until the engine has learned to wait after Create: at most two objects' bytes.
    static let learningAllowance = 2 * 4096

    private func check(_ package: DFUPackage, kind: SimulatedDeviceKind, prn: UInt16, label: String)
        async throws
    {
        let harness = try EngineHarness(kind, accepting: package)
        let (result, events) = await harness.update(package, options: EngineHarness.testOptions(prn: prn))
        XCTAssertEqual(result.outcome, .completed, "\(label): \(EngineHarness.logs(events))")
        harness.assertRuns(package)
        let total = package.images.reduce(0) { $0 + $1.firmware.count }
        XCTAssertGreaterThanOrEqual(result.bytesSent, total, label)
        XCTAssertLessThanOrEqual(
            result.bytesSent, total + Self.learningAllowance, "\(label): resent too much")
        let states = events.states
        XCTAssertEqual(states.first, .connecting, label)
        XCTAssertEqual(states.last, .completed, label)
        XCTAssertEqual(states.contains(.enablingDfuMode), !kind.startsInBootloader, label)
        for part in 1...package.images.count {
            let reports = events.progress.filter { $0.part == part }
            XCTAssertEqual(reports.first?.percent, 0, label)
            XCTAssertEqual(reports.last?.percent, 100, label)
            XCTAssertEqual(reports.map(\.percent), reports.map(\.percent).sorted(), label)
            XCTAssertTrue(reports.allSatisfy { $0.totalParts == package.images.count }, label)
        }
    }

    private func securePackage(_ contents: Contents) throws -> DFUPackage {
        switch contents {
        case .application: try TestPackages.secureApp()
        case .softdeviceBootloader: try TestPackages.secureSDBL()
        case .softdeviceBootloaderApplication: try TestPackages.secureSDBLApp()
        }
    }

    private func legacyPackage(_ contents: Contents) throws -> DFUPackage {
        switch contents {
        case .application: try TestPackages.legacyApp()
        case .softdeviceBootloader: try TestPackages.legacySDBL()
        case .softdeviceBootloaderApplication: try TestPackages.legacySDBLApp()
        }
    }
}
