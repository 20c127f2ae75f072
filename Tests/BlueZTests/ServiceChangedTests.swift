import DBus
import GATT
import TestSupport
import XCTest

@testable import BlueZ

/// A paired device that changes its table on the link (an nRF5 bootloader entered with bonds
/// indicates Service Changed once the link is encrypted): against a model of bluetoothd that
/// lists the application's service, then discovers again and lists the bootloader's.
final class ServiceChangedTests: TwoConnectionTestCase {
    private let device = "00:AA:01:01:00:03"
    private let devicePath = "/org/bluez/hci0/dev_00_AA_01_01_00_03"
    private let secureService = "0000fe59-0000-1000-8000-00805f9b34fb"
    private let packet = "8ec90002-f315-4f60-9fb8-838830daea50"

    func testTheTableBluetoothdDiscoversAfterServiceChangedIsListedOnTheLink() async throws {
        try await serveDevice(buttonless: "8ec90004-f315-4f60-9fb8-838830daea50")
        let context = context()
        let before = BlueZPeripheral.table(
            in: try await context.bus.managedObjects(), under: devicePath, context: context)
        XCTAssertNil(before.services.first?.characteristic(BluetoothUUID(packet)!))
        let server: DBusConnection = try XCTUnwrap(server)
        let path = devicePath
        let rediscovery = Task.detached { try await ServiceChangedTests.rediscover(server, devicePath: path) }
        defer { rediscovery.cancel() }

        let packetUUID = BluetoothUUID(packet)!
        let changed = try await BlueZPeripheral.changedTable(context: context, timeout: .seconds(5)) {
            $0.contains { $0.characteristic(packetUUID) != nil }
        }

        let services = try XCTUnwrap(changed).services
        XCTAssertEqual(services.map(\.uuid), [BluetoothUUID(secureService)!])
        XCTAssertEqual(
            services.first?.characteristics.map(\.uuid),
            [BluetoothUUID("8ec90001-f315-4f60-9fb8-838830daea50")!, packetUUID])
    }

    func testATableThatDoesNotChangeIsNotWaitedForBeyondTheTimeout() async throws {
        try await serveDevice(buttonless: "8ec90004-f315-4f60-9fb8-838830daea50")
        let packetUUID = BluetoothUUID(packet)!
        let start = ContinuousClock.now
        let changed = try await BlueZPeripheral.changedTable(context: context(), timeout: .milliseconds(600))
        {
            $0.contains { $0.characteristic(packetUUID) != nil }
        }
        XCTAssertNil(changed)
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(3))
    }

    func testALinkThatDropsWhileWaitingFailsAsDisconnected() async throws {
        try await serveDevice(buttonless: "8ec90004-f315-4f60-9fb8-838830daea50")
        let context = context()
        context.link.markDown("the link is down (Device1.Connected is false)")
        do {
            _ = try await BlueZPeripheral.changedTable(context: context, timeout: .seconds(5)) { _ in false }
            XCTFail("no error")
        } catch GATTError.disconnected(let device, _) {
            XCTAssertEqual(device, self.device)
        }
    }

    /// What bluetoothd does after the bootloader's Service Changed: `ServicesResolved` false, the
    /// objects of the changed range replaced, then true.
    private static func rediscover(_ server: DBusConnection, devicePath path: String) async throws {
        try await Task.sleep(for: .milliseconds(300))
        try server.setProperty(
            "ServicesResolved", interface: BlueZ.deviceInterface, path: path, to: .boolean(false))
        try server.removeObject(at: path + "/service0010/char0011")
        try exportCharacteristic(
            server, path + "/service0010/char0011", service: path + "/service0010",
            uuid: "8ec90001-f315-4f60-9fb8-838830daea50")
        try exportCharacteristic(
            server, path + "/service0010/char0013", service: path + "/service0010",
            uuid: "8ec90002-f315-4f60-9fb8-838830daea50")
        try server.setProperty(
            "ServicesResolved", interface: BlueZ.deviceInterface, path: path, to: .boolean(true))
    }

    /// The device with the application's Secure DFU service and its buttonless characteristic.
    private func serveDevice(buttonless: String) async throws {
        try await server.requestName("org.bluez")
        try server.addObjectManager(at: "/")
        try server.exportObject(
            at: devicePath,
            interfaces: [
                DBusInterface(
                    BlueZ.deviceInterface,
                    properties: [
                        DBusProperty("Address", value: .string(device)),
                        DBusProperty("Connected", value: .boolean(true)),
                        DBusProperty("ServicesResolved", value: .boolean(true)),
                    ])
            ])
        try server.exportObject(
            at: devicePath + "/service0010",
            interfaces: [
                DBusInterface(
                    BlueZ.serviceInterface,
                    properties: [
                        DBusProperty("UUID", value: .string(secureService)),
                        DBusProperty("Device", value: .objectPath(devicePath)),
                    ])
            ])
        try Self.exportCharacteristic(
            server, devicePath + "/service0010/char0011", service: devicePath + "/service0010",
            uuid: buttonless)
    }

    private static func exportCharacteristic(
        _ connection: DBusConnection, _ path: String, service: String, uuid: String
    ) throws {
        try connection.exportObject(
            at: path,
            interfaces: [
                DBusInterface(
                    BlueZ.characteristicInterface,
                    properties: [
                        DBusProperty("UUID", value: .string(uuid)),
                        DBusProperty("Service", value: .objectPath(service)),
                        DBusProperty("Flags", value: .array(elementSignature: "s", [.string("write")])),
                    ])
            ])
    }

    private func context() -> CharacteristicContext {
        let bus = BlueZBus(connection: client)
        let link = LinkState()
        return CharacteristicContext(
            bus: bus, link: link, device: device, devicePath: devicePath, options: BlueZCentral.Options(),
            pendingCommands: CommandWindow(limit: 1, bus: bus, link: link, device: device), pairing: nil)
    }
}
