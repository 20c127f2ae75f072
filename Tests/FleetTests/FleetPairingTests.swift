import DFUFleet
import DFUSimulator
import DFUSupport
import FirmwareUpdate
import GATT
import NordicDFU
import SimulatedFleet
import SimulatorCommandLine
import XCTest

/// A simulated device's central that pairs as BlueZ's does, as far as the fleet sees it: it
/// records the passkey source given for each device, holds a bond from the first connection
/// on (the device asked for security and was paired), and forgets it when told.
private final class BondingCentral: PairingCentral {
    let inner: SimulatedCentral
    let passkeys = Locked([(PasskeySource?, String)]())
    let removed = Locked([String]())
    private let bonded: Locked<Bool>

    init(_ inner: SimulatedCentral, bondedBefore: Bool) {
        self.inner = inner
        bonded = Locked(bondedBefore)
    }

    var linkTime: any LinkTime { inner.linkTime }

    func scan(_ filter: ScanFilter, timeout: Duration) -> AsyncThrowingStream<Advertisement, any Error> {
        inner.scan(filter, timeout: timeout)
    }

    func connect(_ device: DeviceIdentifier, timeout: Duration) async throws -> any GATTPeripheral {
        let peripheral = try await inner.connect(device, timeout: timeout)
        bonded.withLock { $0 = true }
        return peripheral
    }

    func usePasskey(_ source: PasskeySource?, for address: String) {
        passkeys.withLock { $0.append((source, address)) }
    }

    func isPaired(address: String) async throws -> Bool { bonded.withLock { $0 } }

    func removeBond(address: String) async throws {
        removed.withLock { $0.append(address) }
        bonded.withLock { $0 = false }
    }
}

/// The fleet gives each device its own passkey source (the inventory's, else the options') and
/// removes the bond a run made once the device is done, unless bonds are kept.
final class FleetPairingTests: XCTestCase {
    private let door = FleetFixtures.device(0, kind: .secureApp, firmware: "1.0.0", name: "Door-1")
    private let thermo = FleetFixtures.device(1, kind: .secureApp, firmware: "1.0.0", name: "Thermo-1")

    private func run(
        keepsBonds: Bool = false, bondedBefore: Bool = false, plan: Bool = false,
        doorSecurity: DeviceSecurity = DeviceSecurity(
            level: .authenticated, passkey: .environment("DOOR_PASSKEY")),
        commandLine: DeviceSecurity = DeviceSecurity(passkey: .command("/usr/local/bin/fleet-passkey"))
    ) async throws
        -> (centrals: [BondingCentral], report: FleetReport, log: EventLog)
    {
        let package = FirmwarePackage.nordic(try FleetFixtures.secure(version: 20000, seed: 7))
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
        XCTAssertEqual(centrals[0].passkeys.withLock { $0.first?.0 }, .environment("DOOR_PASSKEY"))
        XCTAssertEqual(centrals[0].passkeys.withLock { $0.first?.1 }, doorAddress)
        XCTAssertEqual(
            centrals[1].passkeys.withLock { $0.first?.0 }, .command("/usr/local/bin/fleet-passkey"))
        // once done, the device's source is taken back
        XCTAssertEqual(centrals[0].passkeys.withLock { $0.last?.0 }, nil as PasskeySource?)
        XCTAssertEqual(centrals[0].removed.withLock { $0 }, [doorAddress], "the bond this run made stays")
        XCTAssertEqual(centrals[1].removed.withLock { $0 }, [thermoAddress])
        XCTAssertEqual(log.planned[doorAddress]?.security?.level, .authenticated)
        XCTAssertEqual(log.planned[doorAddress]?.security?.passkey, .environment("DOOR_PASSKEY"))
        XCTAssertNil(log.planned[thermoAddress]?.security?.level)
    }

    func testKeptBondsAndBondsHeldBeforeStay() async throws {
        let kept = try await run(keepsBonds: true)
        XCTAssertTrue(kept.report.succeeded)
        XCTAssertEqual(kept.centrals.flatMap { $0.removed.withLock { $0 } }, [])
        let held = try await run(bondedBefore: true)
        XCTAssertTrue(held.report.succeeded)
        XCTAssertEqual(
            held.centrals.flatMap { $0.removed.withLock { $0 } }, [], "a bond held before the run went")
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
        XCTAssertEqual(centrals.flatMap { $0.removed.withLock { $0 } }.count, 2)
    }
}
