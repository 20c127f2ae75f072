import DFUFleet
import DFUSimulator
import DFUSupport
import FirmwareUpdate
import GATT
import GATTTesting
import NordicDFU
import SimulatedFleet
import SimulatorCommandLine
import XCTest

/// The fleet gives each device its own passkey source (the inventory's, else the options') and
/// removes the bond a run made once the device is done, unless bonds are kept.
final class FleetPairingTests: XCTestCase {
    private let door = FleetFixtures.device(0, kind: .secureApp, firmware: "1.0.0", name: "Door-1")
    private let thermo = FleetFixtures.device(1, kind: .secureApp, firmware: "1.0.0", name: "Thermo-1")

    private func run(
        keepsBonds: Bool = false, bondedBefore: Bool = false, plan: Bool = false, pairAgain: Bool = false,
        doorSecurity: DeviceSecurity = DeviceSecurity(
            level: .authenticated, passkey: .environment("DOOR_PASSKEY")),
        commandLine: DeviceSecurity = DeviceSecurity(passkey: .command("/usr/local/bin/fleet-passkey"))
    ) async throws
        -> (centrals: [BondingCentral], report: FleetReport, log: EventLog)
    {
        let package = FirmwarePackage(try FleetFixtures.secure(version: 20000, seed: 7))
        let (_, simulated) = try FleetAdapter.simulated([door, thermo])
        let centrals = simulated.map { BondingCentral($0, bondedBefore: bondedBefore) }
        let adapter = FleetAdapter(name: "simulated", centrals: centrals, maximumConnections: 2)
        let inventory = try FleetInventory(
            defaults: .init(package: "A"),
            devices: [
                FleetDeviceEntry(
                    device: door.address.description,
                    security: doorSecurity),
                FleetDeviceEntry(device: thermo.address.description),
            ])
        var options = FleetFixtures.options(concurrency: 2)
        options.security = commandLine
        options.keepsBonds = keepsBonds
        options.removesBondsFirst = pairAgain
        options.plan = plan
        let fleet = try Fleet(
            inventory: inventory, packages: ["A": package], adapters: [adapter], options: options)
        let log = EventLog()
        let report = await fleet.run { log.append($0) }
        return (centrals, report, log)
    }

    func testEachDeviceGetsItsOwnPasskeySourceAndLosesTheBondTheRunMade() async throws {
        let (centrals, report, log) = try await run()
        XCTAssertTrue(report.succeeded, "\(report.devices.map { $0.failure?.message ?? "" })")
        let doorAddress = door.address.description
        let thermoAddress = thermo.address.description
        XCTAssertEqual(centrals[0].passkeys.first?.0, .environment("DOOR_PASSKEY"))
        XCTAssertEqual(centrals[0].passkeys.first?.1, doorAddress)
        XCTAssertEqual(
            centrals[1].passkeys.first?.0, .command("/usr/local/bin/fleet-passkey"))
        // once done, the device's source is taken back
        XCTAssertEqual(centrals[0].passkeys.last?.0, nil as PasskeySource?)
        XCTAssertEqual(centrals[0].removed, [doorAddress], "the bond this run made stays")
        XCTAssertEqual(centrals[1].removed, [thermoAddress])
        XCTAssertEqual(log.planned[doorAddress]?.security?.level, .authenticated)
        XCTAssertEqual(log.planned[doorAddress]?.security?.passkey, .environment("DOOR_PASSKEY"))
        XCTAssertNil(log.planned[thermoAddress]?.security?.level)
    }

    func testKeptBondsAndBondsHeldBeforeStay() async throws {
        let kept = try await run(keepsBonds: true)
        XCTAssertTrue(kept.report.succeeded)
        XCTAssertEqual(kept.centrals.flatMap { $0.removed }, [])
        let held = try await run(bondedBefore: true)
        XCTAssertTrue(held.report.succeeded)
        XCTAssertEqual(
            held.centrals.flatMap { $0.removed }, [], "a bond held before the run went")
    }

    /// `--re-pair`: a bond held before is removed before the first connection, and the one the
    /// run then makes counts as the user's (docs/pairing.md): it stays, as `flash` leaves it.
    func testPairingAgainRemovesTheOldBondFirstAndKeepsTheNewOne() async throws {
        let (centrals, report, _) = try await run(bondedBefore: true, pairAgain: true)
        XCTAssertTrue(report.succeeded, "\(report.devices.map { $0.failure?.message ?? "" })")
        XCTAssertEqual(centrals[0].removed, [door.address.description], "removed once, before connecting")
        XCTAssertEqual(centrals[1].removed, [thermo.address.description])
        for central in centrals {
            let stillPaired = try await central.isPaired(address: door.address)
            XCTAssertTrue(stillPaired, "the bond made after pairing again was removed")
        }
    }

    /// Authenticated pairing without a passkey source could only fail on the device: the device
    /// fails at once, without an update, naming what is missing.
    func testAnAuthenticatedDeviceWithoutAPasskeySourceFailsBeforeItsUpdate() async throws {
        let (_, report, log) = try await run(
            doorSecurity: DeviceSecurity(level: .authenticated), commandLine: DeviceSecurity())
        let door = try XCTUnwrap(report.device(self.door.address.description))
        XCTAssertEqual(door.result, .failed)
        XCTAssertEqual(door.failure?.error, .securityRequired)
        XCTAssertTrue(
            door.failure?.message.contains("names no passkey source") == true,
            "\(door.failure?.message ?? "")")
        XCTAssertEqual(door.bytesSent, 0)
        XCTAssertEqual(log.planned[self.door.address.description]?.note, "no passkey source")
        XCTAssertEqual(report.device(thermo.address.description)?.result, .completed)
    }

    func testAPlanRemovesTheBondItsReadMade() async throws {
        let (centrals, report, _) = try await run(plan: true)
        XCTAssertEqual(report.devices.map(\.result), [.notStarted, .notStarted])
        XCTAssertEqual(centrals.flatMap { $0.removed }.count, 2)
    }
}
