import DBus
import DFUSupport
import GATT
import TestSupport
import XCTest

@testable import BlueZ

/// The discovery session scans share: it runs while any scan does, and when bluetoothd refuses
/// it on an adapter that is off, the cause is the adapter's power, whatever the refusal says.
final class DiscoveryTests: TwoConnectionTestCase {
    /// Scans that start together (devices of a fleet jumping into their bootloaders at once):
    /// each join waits for bluetoothd, and one that overlapped another's must not take discovery
    /// for started before it is.
    func testScansStartingTogetherStartDiscoveryOnceAndStopItWithTheLast() async throws {
        let calls = Locked<[String]>([])
        try await serveAdapter(powered: true) { call in calls.withLock { $0.append(call.member) } }
        let sessions = sessions()
        async let first = sessions.join(ScanFilter())
        async let second = sessions.join(ScanFilter())
        async let third = sessions.join(ScanFilter())
        let ids = try await [first, second, third]
        XCTAssertEqual(
            calls.withLock { $0.filter { $0 == "StartDiscovery" }.count }, 1, "\(calls.withLock { $0 })")
        await sessions.leave(ids[0])
        await sessions.leave(ids[1])
        XCTAssertFalse(calls.withLock { $0.contains("StopDiscovery") }, "stopped while a scan still ran")
        await sessions.leave(ids[2])
        XCTAssertEqual(calls.withLock { $0.last }, "StopDiscovery")
        // and it starts again for the next scan
        _ = try await sessions.join(ScanFilter())
        XCTAssertEqual(calls.withLock { $0.last }, "StartDiscovery")
    }

    /// bluetoothd 5.82 takes a filter of only the adapter's own transport (an LE-only controller)
    /// for a plain discovery, which reports only devices advertising as discoverable; an empty
    /// Pattern makes it report every device, as 5.66 did (docs/bluez-module.md).
    func testTheFilterAsksForEveryDeviceWhateverItsAdvertisedFlags() async throws {
        let arguments = Locked<[DBusValue]>([])
        try await serveAdapter(powered: true) { call in
            if call.member == "SetDiscoveryFilter" { arguments.withLock { $0 = call.arguments } }
        }
        _ = try await sessions().join(ScanFilter())
        let filter = try XCTUnwrap(arguments.withLock { $0.first }?.stringKeyedDictionary)
        XCTAssertEqual(filter["Pattern"]?.stringValue, "")
        XCTAssertEqual(filter["Transport"]?.stringValue, "le")
    }

    /// bluetoothd 5.66, while the adapter powers off under a scan, can still list this client's
    /// discovery session and answer the next StartDiscovery with InProgress.
    func testARefusedStartOnAnAdapterPoweredOffSaysTheAdapterIsOff() async throws {
        try await serveAdapter(powered: false, refusingStart: true)
        do {
            _ = try await sessions().join(ScanFilter())
            XCTFail("discovery started on an adapter that is off")
        } catch GATTError.bluetoothUnavailable(let reason) {
            XCTAssertTrue(reason.contains("hci0 is powered off"), reason)
        }
    }

    func testARefusedStartOnAPoweredAdapterSaysWhatBluetoothdSaid() async throws {
        try await serveAdapter(powered: true, refusingStart: true)
        do {
            _ = try await sessions().join(ScanFilter())
            XCTFail("discovery started although bluetoothd refused it")
        } catch GATTError.operationFailed(let operation, let reason) {
            XCTAssertTrue(operation.contains("starting discovery on hci0"), operation)
            XCTAssertTrue(reason.contains("InProgress"), reason)
        }
    }

    /// A model adapter: every discovery call is recorded by `record`; StartDiscovery is refused
    /// with InProgress when `refusingStart`.
    private func serveAdapter(
        powered: Bool, refusingStart: Bool = false,
        record: @escaping @Sendable (DBusMethodCall) -> Void = { _ in }
    ) async throws {
        try await server.requestName("org.bluez")
        let call = { (name: String) in
            DBusMethod(name, in: name == "SetDiscoveryFilter" ? "a{sv}" : "") { call in
                record(call)
                if refusingStart, name == "StartDiscovery" {
                    throw DBusError.error(
                        name: "org.bluez.Error.InProgress", message: "Operation already in progress")
                }
                return []
            }
        }
        try server.exportObject(
            at: "/org/bluez/hci0",
            interfaces: [
                DBusInterface(
                    "org.bluez.Adapter1",
                    methods: ["SetDiscoveryFilter", "StartDiscovery", "StopDiscovery"].map(call),
                    properties: [DBusProperty("Powered", value: .boolean(powered))])
            ])
    }

    private func sessions() -> DiscoverySessions {
        DiscoverySessions(
            bus: BlueZBus(connection: client),
            adapter: Adapter(path: "/org/bluez/hci0", address: "00:AA:01:01:00:00"))
    }
}
