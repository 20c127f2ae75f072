import BlueZ
import DBus
import GATT
import XCTest

/// Adapters, scanning, connecting, reading and the MTU against real bluetoothd.
final class CentralTests: SystemTestCase {
    func testScanReportsThePeripheralWithItsAdvertisedData() async throws {
        var found: Advertisement?
        let filter = ScanFilter(serviceUUIDs: [TestPeripheral.service])
        for try await advertisement in central.scan(filter, timeout: .seconds(15))
        where advertisement.address == peripheral.address {
            found = advertisement
            break
        }
        let advertisement = try XCTUnwrap(found, "the peripheral on hci1 was not seen within 15 s")
        XCTAssertEqual(advertisement.name, TestPeripheral.name)
        XCTAssertTrue(advertisement.serviceUUIDs.contains(TestPeripheral.service))
        XCTAssertNotNil(advertisement.rssi)
    }

    func testScanWithAFilterOfAnotherServiceDoesNotReportThePeripheral() async throws {
        let filter = ScanFilter(serviceUUIDs: [BluetoothUUID(short: 0x1530)])
        for try await advertisement in central.scan(filter, timeout: .seconds(3)) {
            XCTAssertNotEqual(advertisement.address, peripheral.address)
        }
    }

    func testConnectResolvesServicesReadsDISAndReportsTheMTU() async throws {
        let link = try await connect()
        XCTAssertEqual(link.address, peripheral.address)
        let isConnected = await link.isConnected
        XCTAssertTrue(isConnected)
        let uuids = try await link.services().map(\.uuid)
        XCTAssertTrue(uuids.contains(TestPeripheral.service), "\(uuids)")
        XCTAssertTrue(uuids.contains(TestPeripheral.deviceInformation), "\(uuids)")

        let firmware = try await characteristic(TestPeripheral.firmwareRevision, of: link)
        XCTAssertEqual(firmware.properties, [.read])
        let value = try await firmware.read(timeout: .seconds(10))
        XCTAssertEqual(String(decoding: value, as: UTF8.self), TestPeripheral.firmwareVersion)

        // two bluetoothd's negotiate 517; bluetoothd 5.66 passes on at most 510 bytes
        let mtu = await link.mtu
        XCTAssertEqual(mtu, 517)
        let packet = try await characteristic(TestPeripheral.packet, of: link)
        let largest = await packet.maximumWriteWithoutResponseLength
        XCTAssertEqual(largest, 510)
    }

    func testConnectByNameScansForIt() async throws {
        let central = try await BlueZCentral(adapter: SystemTestEnvironment.centralAdapter)
        let link = try await central.connect(.name(TestPeripheral.name), timeout: .seconds(30))
        XCTAssertEqual(link.address, peripheral.address)
        await link.disconnect()
        let isConnected = await link.isConnected
        XCTAssertFalse(isConnected)
    }

    func testConnectingToAnAbsentDeviceFailsWithinItsTimeout() async throws {
        let started = ContinuousClock.now
        do {
            _ = try await central.connect(DeviceIdentifier("C0:DE:00:00:00:99"), timeout: .seconds(3))
            XCTFail("connected to a device that does not exist")
        } catch GATTError.connectionFailed(let device, _) {
            XCTAssertEqual(device, "C0:DE:00:00:00:99")
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(8))
    }

    func testMissingAdapterIsBluetoothUnavailable() async throws {
        do {
            _ = try await BlueZCentral(adapter: "hci9")
            XCTFail("an adapter hci9 was found")
        } catch GATTError.bluetoothUnavailable(let reason) {
            XCTAssertTrue(reason.contains("hci9"), reason)
        }
    }

    func testRemoveDeviceForgetsIt() async throws {
        let link = try await connect()
        await link.disconnect()
        let known = try await bluetoothdKnows(peripheral.address)
        XCTAssertTrue(known, "bluetoothd has no object for a device it was connected to")
        try await central.removeDevice(address: peripheral.address)
        let stillKnown = try await bluetoothdKnows(peripheral.address)
        XCTAssertFalse(stillKnown, "bluetoothd still has \(peripheral.address) after RemoveDevice")
        // a second removal finds nothing to remove and still succeeds
        try await central.removeDevice(address: peripheral.address)
    }

    /// Whether bluetoothd has a Device1 object for `address` on the central's adapter (asked on
    /// a system-bus connection of its own, not through the code under test).
    private func bluetoothdKnows(_ address: BluetoothAddress) async throws -> Bool {
        let connection = try await DBusConnection.connect(to: .system)
        defer { connection.close() }
        let path =
            "/org/bluez/\(SystemTestEnvironment.centralAdapter)/dev_"
            + address.description.replacingOccurrences(of: ":", with: "_")
        do {
            _ = try await connection.call(
                destination: "org.bluez", path: path, interface: "org.freedesktop.DBus.Properties",
                member: "Get",
                arguments: [.string("org.bluez.Device1"), .string("Address")], timeout: .seconds(5))
            return true
        } catch let error as DBusError
            where error.name == DBusError.Name.unknownObject
            || error.name == "org.freedesktop.DBus.Error.UnknownMethod"
            || error.name == "org.freedesktop.DBus.Error.InvalidArgs"
        {
            return false
        }
    }
}
