import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// Application mode: DIS, buttonless jumps and where the bootloader comes up (protocol doc §2.9,
/// §1.9, §0.4).
final class ButtonlessTests: XCTestCase {
    let uuids = Fixtures.uuids
    let address = DeviceIdentifier("C0:DE:00:00:00:10")

    private func advertisements(_ central: SimulatedCentral, filter: ScanFilter = ScanFilter()) async throws
        -> [Advertisement]
    {
        var found: [Advertisement] = []
        for try await advertisement in central.scan(filter, timeout: .milliseconds(50)) {
            found.append(advertisement)
        }
        return found
    }

    func testApplicationReportsItsVersionAndAdvertises() async throws {
        let central = try SimulatedCentral(devices: [
            SimulatedDeviceConfiguration(kind: .secureApp, firmwareVersion: "1.2.3")
        ])
        let seen = try await advertisements(central, filter: ScanFilter(serviceUUIDs: [uuids.secureService]))
        XCTAssertEqual(seen.map(\.address.description), ["C0:DE:00:00:00:10"])
        XCTAssertEqual(seen.first?.name, "DfuSim")
        let client = try await ScriptedClient(central: central, device: .name("DfuSim"))
        let revision = try await client.read(DeviceInformationUUIDs.firmwareRevision)
        XCTAssertEqual(String(decoding: revision, as: UTF8.self), "1.2.3")
        let services = try await client.serviceUUIDs
        XCTAssertEqual(services, [DeviceInformationUUIDs.service, uuids.secureService])
        XCTAssertEqual(central.snapshot(of: address)?.mode, .application)
    }

    func testButtonlessWithoutBondsSetsTheNameAndMovesToAddressPlusOne() async throws {
        let central = try SimulatedCentral(devices: [SimulatedDeviceConfiguration(kind: .secureApp)])
        let client = try await ScriptedClient(central: central, device: address)
        let buttonless = uuids.buttonlessWithoutBonds
        do {
            try await client.write(buttonless, [0x01])
            XCTFail("writes before indications are enabled must be refused")
        } catch GATTError.operationFailed(_, let reason) {
            XCTAssertTrue(reason.contains("0xFD"))
        }
        try await client.subscribe(buttonless)
        let invalidName = try await client.request(buttonless, [0x02, 0x00])
        XCTAssertEqual(invalidName, Fixtures.hex("20 02 05"))
        let named = try await client.request(buttonless, Fixtures.hex("02 08 44 66 75 30 34 32 31 37"))
        XCTAssertEqual(named, Fixtures.hex("20 02 01"))
        let entered = try await client.request(buttonless, [0x01])
        XCTAssertEqual(entered, Fixtures.hex("20 01 01"))
        do {
            _ = try await client.next(buttonless)
            XCTFail("the stream must end with the disconnect")
        } catch GATTError.disconnected {}
        try await client.peripheral.waitForDisconnection(timeout: .seconds(1))

        let seen = try await advertisements(central, filter: ScanFilter(serviceUUIDs: [uuids.secureService]))
        XCTAssertEqual(seen.map(\.address.description), ["C0:DE:00:00:00:11"])
        XCTAssertEqual(seen.first?.name, "Dfu04217")
        let bootloader = try await ScriptedClient(central: central, device: .name("Dfu04217"))
        let service = try await bootloader.peripheral.service(uuids.secureService)
        XCTAssertEqual(service?.characteristics.map(\.uuid), [uuids.secureControlPoint, uuids.securePacket])
        XCTAssertEqual(bootloader.peripheral.address.description, "C0:DE:00:00:00:11")
        let mtu = await bootloader.peripheral.mtu
        XCTAssertEqual(mtu, 247)
        XCTAssertEqual(central.snapshot(of: address)?.mode, .bootloader)
    }

    func testButtonlessWithBondsKeepsTheAddressAndRefusesNames() async throws {
        let central = try SimulatedCentral(devices: [SimulatedDeviceConfiguration(kind: .secureAppBonded)])
        let client = try await ScriptedClient(central: central, device: address)
        let buttonless = uuids.buttonlessWithBonds
        try await client.subscribe(buttonless)
        let named = try await client.request(buttonless, Fixtures.hex("02 03 41 42 43"))
        XCTAssertEqual(named, Fixtures.hex("20 02 02"))
        let entered = try await client.request(buttonless, [0x01])
        XCTAssertEqual(entered, Fixtures.hex("20 01 01"))
        try await client.peripheral.waitForDisconnection(timeout: .seconds(1))
        let bootloader = try await ScriptedClient(central: central, device: address)
        XCTAssertEqual(bootloader.peripheral.name, "DfuTarg")
        let services = try await bootloader.serviceUUIDs
        XCTAssertEqual(services, [uuids.secureService])
    }

    func testLegacyApplicationJumpsOnStartAndKeepsTheAddress() async throws {
        let central = try SimulatedCentral(devices: [SimulatedDeviceConfiguration(kind: .legacyApp)])
        let client = try await ScriptedClient(central: central, device: address)
        let version = try await client.read(uuids.legacyVersion)
        XCTAssertEqual(version, [0x01, 0x00])
        let mtu = await client.peripheral.mtu
        XCTAssertEqual(mtu, 23)
        try await client.subscribe(uuids.legacyControlPoint)
        try await client.write(uuids.legacyControlPoint, [0x01, 0x04])
        try await client.peripheral.waitForDisconnection(timeout: .seconds(1))
        let bootloader = try await ScriptedClient(central: central, device: address)
        let bootloaderVersion = try await bootloader.read(uuids.legacyVersion)
        XCTAssertEqual(bootloaderVersion, [0x08, 0x00])
        XCTAssertEqual(bootloader.peripheral.name, "DfuTarg")
    }

    func testTheBootloaderTakesBootTimeToAppearOnTheClock() async throws {
        let central = try SimulatedCentral(devices: [SimulatedDeviceConfiguration(kind: .secureApp)])
        let client = try await ScriptedClient(central: central, device: address)
        try await client.subscribe(uuids.buttonlessWithoutBonds)
        _ = try await client.request(uuids.buttonlessWithoutBonds, [0x01])
        let jumped = central.linkTime.now()
        _ = try await ScriptedClient(central: central, device: DeviceIdentifier("C0:DE:00:00:00:11"))
        let timing = SimulationTiming()
        XCTAssertGreaterThanOrEqual(central.linkTime.now() - jumped, timing.bootTime + timing.connectionSetup)
    }

    func testWaitingForADisconnectionThatDoesNotComeTimesOut() async throws {
        let central = try SimulatedCentral(devices: [SimulatedDeviceConfiguration(kind: .secureApp)])
        let peripheral = try await central.connect(address, timeout: .seconds(1))
        do {
            try await peripheral.waitForDisconnection(timeout: .milliseconds(50))
            XCTFail("nothing drops the link")
        } catch GATTError.timeout {}
        await peripheral.disconnect()
        try await peripheral.waitForDisconnection(timeout: .milliseconds(50))
        do {
            _ = try await peripheral.services()
            XCTFail("a dropped link has no services")
        } catch GATTError.disconnected {}
    }

    func testUnusableTimingIsRefused() {
        var timing = SimulationTiming()
        timing.connectionInterval = .zero
        XCTAssertThrowsError(
            try SimulatedCentral(devices: [SimulatedDeviceConfiguration(kind: .secure, timing: timing)]))
        XCTAssertThrowsError(
            try SimulatedCentral(devices: [
                SimulatedDeviceConfiguration(kind: .secure), SimulatedDeviceConfiguration(kind: .legacy),
            ]))
    }

    func testAScanInProgressSeesTheBootloaderAppear() async throws {
        let central = try SimulatedCentral(devices: [SimulatedDeviceConfiguration(kind: .secureApp)])
        let client = try await ScriptedClient(central: central, device: address)
        var scan = central.scan(ScanFilter(serviceUUIDs: [uuids.secureService]), timeout: .seconds(5))
            .makeAsyncIterator()
        try await client.subscribe(uuids.buttonlessWithoutBonds)
        _ = try await client.request(uuids.buttonlessWithoutBonds, [0x01])
        // The connected application did not advertise; the only report is the bootloader's.
        let appeared = try await scan.next()
        XCTAssertEqual(appeared?.address.description, "C0:DE:00:00:00:11")
        XCTAssertEqual(appeared?.name, "DfuTarg")
    }
}
