import DBus
import GATT
import TestSupport
import XCTest

@testable import BlueZ

/// Starting discovery on an adapter that bluetoothd refuses it on: the cause is the adapter's
/// power when it is off, whatever the refusal says.
final class DiscoveryTests: TwoConnectionTestCase {
    /// bluetoothd 5.66, while the adapter powers off under a scan, can still list this client's
    /// discovery session and answer the next StartDiscovery with InProgress.
    func testARefusedStartOnAnAdapterPoweredOffSaysTheAdapterIsOff() async throws {
        try await serveAdapter(powered: false)
        do {
            _ = try await sessions().join(ScanFilter())
            XCTFail("discovery started on an adapter that is off")
        } catch GATTError.bluetoothUnavailable(let reason) {
            XCTAssertTrue(reason.contains("hci0 is powered off"), reason)
        }
    }

    func testARefusedStartOnAPoweredAdapterSaysWhatBluetoothdSaid() async throws {
        try await serveAdapter(powered: true)
        do {
            _ = try await sessions().join(ScanFilter())
            XCTFail("discovery started although bluetoothd refused it")
        } catch GATTError.operationFailed(let operation, let reason) {
            XCTAssertTrue(operation.contains("starting discovery on hci0"), operation)
            XCTAssertTrue(reason.contains("InProgress"), reason)
        }
    }

    private func serveAdapter(powered: Bool) async throws {
        try await server.requestName("org.bluez")
        try server.exportObject(
            at: "/org/bluez/hci0",
            interfaces: [
                DBusInterface(
                    "org.bluez.Adapter1",
                    methods: [
                        DBusMethod("SetDiscoveryFilter", in: "a{sv}") { _ in [] },
                        DBusMethod("StartDiscovery") { _ in
                            throw DBusError.error(
                                name: "org.bluez.Error.InProgress", message: "Operation already in progress")
                        },
                    ],
                    properties: [DBusProperty("Powered", value: .boolean(powered))])
            ])
    }

    private func sessions() -> DiscoverySessions {
        DiscoverySessions(
            bus: BlueZBus(connection: client),
            adapter: Adapter(path: "/org/bluez/hci0", address: "00:AA:01:01:00:00"))
    }
}
