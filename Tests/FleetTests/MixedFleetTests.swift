import DFUFleet
import DFUSimulator
import DFUSupport
import FirmwareUpdate
import GATT
import NordicDFU
import SimulatedFleet
import SimulatorCommandLine
import XCTest

/// 58 simulated devices of every kind, with mixed versions, faults and a rule, plus one device
/// that does not exist: each device must end holding exactly what the report says, and every
/// updated device activated its image once.
final class MixedFleetTests: XCTestCase {
    private struct Case {
        var configuration: SimulatedDeviceConfiguration
        var entry: FleetDeviceEntry
        var expected: FleetDeviceReport.Result
        /// The package key it must hold afterwards (completed devices).
        var package: String?
    }

    private func cases() -> [Case] {
        var cases: [Case] = []
        func add(
            _ range: Range<Int>, _ kind: SimulatedDeviceKind, firmware: String?,
            faults: [SimulatedFault] = [],
            named: Bool = false, package: String? = nil, expected: FleetDeviceReport.Result = .completed,
            holds: String? = "A", adjust: (inout SimulatedDeviceConfiguration) -> Void = { _ in }
        ) {
            for index in range {
                let name = named ? "Thermo-\(index)" : "DfuSim"
                var configuration = FleetFixtures.device(
                    index, kind: kind, firmware: firmware, faults: faults, name: name)
                adjust(&configuration)
                let device = named ? name : configuration.address.description
                cases.append(
                    Case(
                        configuration: configuration,
                        entry: FleetDeviceEntry(device: device, package: package),
                        expected: expected, package: expected == .completed ? holds : nil))
            }
        }
        add(0..<14, .secureApp, firmware: "1.0.0")
        add(14..<20, .secureAppBonded, firmware: "1.0.0")
        add(20..<26, .secure, firmware: nil)
        add(26..<34, .secureApp, firmware: "1.5.0", named: true, holds: "B")
        add(34..<38, .secureApp, firmware: "2.0.0", expected: .skipped)
        add(38..<44, .legacyApp, firmware: "0.0.0", package: "L", holds: "L")
        add(44..<46, .legacy, firmware: nil, package: "L", holds: "L")
        add(46..<49, .secureApp, firmware: "1.0.0", faults: [.disconnectAt(bytes: 3000)])
        add(49..<51, .secureApp, firmware: "1.0.0", faults: [.rejectConnect(5)], expected: .failed)
        add(51..<53, .secureApp, firmware: "1.0.0", expected: .failed) { $0.hardwareVersion = 51 }
        add(53..<55, .secureAppBonded, firmware: "1.0.0", faults: [.crcError(2)])
        // the answer to the last Execute (Validate on Legacy) goes down with the link
        add(55..<56, .secureApp, firmware: "1.0.0", faults: [.dropFinalAnswer(1)])
        add(56..<57, .secure, firmware: nil, faults: [.dropFinalAnswer(1)])
        add(57..<58, .legacyApp, firmware: "0.0.0", faults: [.dropFinalAnswer(1)], package: "L", holds: "L")
        return cases
    }

    func testFiftyNineDevicesEndHoldingWhatTheReportSays() async throws {
        let nordic = [
            "A": try FleetFixtures.secure(version: 20000, seed: 1),
            "B": try FleetFixtures.secure(version: 30000, size: 7000, seed: 2),
            "L": try FleetFixtures.legacy(version: 2, seed: 3),
        ]
        let packages = nordic.mapValues { FirmwarePackage($0) }
        let cases = cases()
        let missing = "C0:DE:00:00:FF:F0"
        let inventory = try FleetInventory(
            defaults: .init(package: "A"), devices: cases.map(\.entry) + [FleetDeviceEntry(device: missing)],
            rules: [FleetRule(name: "Thermo-*", versionBelow: DFUFirmwareVersion("3.0.0"), package: "B")])
        let (adapter, centrals) = try FleetAdapter.simulated(
            cases.map(\.configuration), maximumConnections: 6)
        let fleet = try Fleet(
            inventory: inventory, packages: packages, adapters: [adapter],
            options: FleetFixtures.options(concurrency: 16))
        let log = EventLog()
        let active = Locked((now: Set<String>(), peak: 0))
        let report = await fleet.run { event in
            log.append(event)
            active.withLock { active in
                switch event {
                case .device(let device, _): active.now.insert(device)
                case .finished(let report): active.now.remove(report.device)
                default: break
                }
                active.peak = max(active.peak, active.now.count)
            }
        }

        XCTAssertEqual(report.devices.count, cases.count + 1)
        XCTAssertFalse(report.succeeded)
        XCTAssertLessThanOrEqual(
            active.withLock { $0.peak }, 6, "the adapter was asked for more than it holds")
        let notFound = try XCTUnwrap(report.device(missing))
        XCTAssertEqual(notFound.result, .failed)
        XCTAssertEqual(notFound.failure?.error, .failedToConnect)
        XCTAssertEqual(log.planned[missing]?.found, false)

        let shas = nordic.mapValues(FleetFixtures.sha256)
        for (index, testCase) in cases.enumerated() {
            let name = testCase.entry.device
            let device = try XCTUnwrap(report.device(name), name)
            let snapshot = try XCTUnwrap(centrals[index].snapshots.first, name)
            XCTAssertEqual(device.result, testCase.expected, "\(name): \(device.failure?.message ?? "")")
            let held = snapshot.images[.application]?.sha256
            if let package = testCase.package {
                XCTAssertEqual(held, shas[package], "\(name) holds another image than its package's")
                XCTAssertEqual(device.package, package, name)
                XCTAssertEqual(snapshot.mode, .application, name)
                XCTAssertEqual(snapshot.activations, 1, name)
                XCTAssertEqual(device.versionAfter, snapshot.firmwareRevision, name)
                XCTAssertGreaterThanOrEqual(
                    device.bytesSent, nordic[package]!.images[0].firmware.count, name)
                XCTAssertGreaterThan(device.duration, .zero, name)
            } else {
                XCTAssertFalse(shas.values.contains { $0 == held }, "\(name) got an image")
                XCTAssertEqual(snapshot.activations, 0, name)
            }
            if testCase.expected == .skipped {
                XCTAssertEqual(device.versionBefore, "2.0.0")
                XCTAssertEqual(device.versionAfter, "2.0.0")
            }
        }
        // The faults show in the report as what they are.
        for index in 46..<49 {
            XCTAssertGreaterThan(report.devices[index].retries, 0, report.devices[index].device)
        }
        for index in 49..<51 { XCTAssertEqual(report.devices[index].failure?.error, .failedToConnect) }
        for index in 51..<53 {
            XCTAssertEqual(report.devices[index].failure?.error, .remoteExtendedErrorHwVersionFailure)
        }
        XCTAssertEqual(report.devices[28].versionAfter, "3.0.0", "the rule chose package B for Thermo-28")
        XCTAssertEqual(
            log.planned["Thermo-28"]?.choice?.reason, "rule 1 (name matches Thermo-*, version below 3.0.0)")
    }
}
