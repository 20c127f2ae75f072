import DBus
import GATT
import TestSupport
import XCTest

@testable import BlueZ

/// `subscribe` through `AcquireNotify` against `NotifyingBluetoothd`: a stale table must not
/// leave bluetoothd with a notification session that nobody can end.
final class SubscriptionTests: TwoConnectionTestCase {
    func testAFreshTableIsSubscribedThroughTheAcquiredSocketAfterTheCCCWriteWasTried() async throws {
        let bluetoothd = try await NotifyingBluetoothd(serving: server, staleTableError: nil)
        let notifications = try await characteristic().subscribe(timeout: .seconds(5))

        bluetoothd.notify([0x60, 0x01, 0x01])
        var iterator = notifications.makeAsyncIterator()
        let first = try await iterator.next()
        XCTAssertEqual(first, [0x60, 0x01, 0x01])
        XCTAssertEqual(bluetoothd.calls, ["StartNotify", "StopNotify", "AcquireNotify"])
    }

    /// Notifications queued together come one by one, in order, also those still in the socket
    /// when bluetoothd hangs up; then the stream ends as a dropped link.
    func testQueuedNotificationsAndThoseLeftAtAHangUpArriveInOrderBeforeTheEnd() async throws {
        let bluetoothd = try await NotifyingBluetoothd(serving: server, staleTableError: nil)
        let notifications = try await characteristic().subscribe(timeout: .seconds(5))
        let values: [[UInt8]] = (1...5).map { [0x60, 0x03, 0x01, $0] }
        for value in values { bluetoothd.notify(value) }
        var iterator = notifications.makeAsyncIterator()
        let first = try await iterator.next()
        XCTAssertEqual(first, values[0])
        for value in values[1...3] { bluetoothd.notify(value.reversed()) }
        bluetoothd.hangUp()
        var received: [[UInt8]] = []
        do {
            while let value = try await iterator.next() { received.append(value) }
            XCTFail("the stream ended without an error after \(received)")
        } catch GATTError.disconnected {}
        XCTAssertEqual(received, Array(values[1...]) + values[1...3].map { $0.reversed() })
    }

    func testAStaleTableIsForgottenWithoutAcquireNotifyAndTheNextConnectionSubscribes() async throws {
        try await assertStaleTableIsForgotten(answering: 0x01)
    }

    func testAStaleTableWhoseHandleRefusesWritesIsForgottenToo() async throws {
        try await assertStaleTableIsForgotten(answering: 0x03)
    }

    /// A table whose CCC write meets `attError`: the subscribe fails as `disconnected` and the
    /// device is removed without `AcquireNotify` having been called; the next connection then
    /// subscribes through the socket.
    private func assertStaleTableIsForgotten(answering attError: UInt8) async throws {
        let bluetoothd = try await NotifyingBluetoothd(serving: server, staleTableError: attError)
        do {
            _ = try await characteristic().subscribe(timeout: .seconds(2))
            XCTFail("subscribed to a stale table")
        } catch GATTError.disconnected(_, let reason) {
            XCTAssertTrue(reason.contains("stale"), reason)
        }
        XCTAssertEqual(bluetoothd.calls, ["StartNotify", "RemoveDevice"])

        let notifications = try await characteristic().subscribe(timeout: .seconds(5))
        XCTAssertEqual(bluetoothd.calls.suffix(3), ["StartNotify", "StopNotify", "AcquireNotify"])
        withExtendedLifetime(notifications) {}
    }

    func testIndicationsAreSubscribedWithStartNotifyAlone() async throws {
        let bluetoothd = try await NotifyingBluetoothd(serving: server, staleTableError: nil)
        // kept until the calls are read: ending the stream sends StopNotify
        let indications = try await characteristic(properties: [.write, .indicate]).subscribe(
            timeout: .seconds(5))
        XCTAssertEqual(bluetoothd.calls, ["StartNotify"])
        withExtendedLifetime(indications) {}
    }

    /// A characteristic of a new connection to the device.
    private func characteristic(properties: CharacteristicProperties = [.write, .notify])
        -> BlueZCharacteristic
    {
        let bus = BlueZBus(connection: client)
        let link = LinkState()
        let device = "00:AA:01:01:00:01"
        let context = CharacteristicContext(
            bus: bus, link: link, device: device, devicePath: NotifyingBluetoothd.devicePath,
            options: BlueZCentral.Options(),
            pendingCommands: CommandWindow(limit: 1, bus: bus, link: link, device: device))
        return BlueZCharacteristic(
            context: context, path: NotifyingBluetoothd.characteristicPath,
            uuid: BluetoothUUID("8ec90001-f315-4f60-9fb8-838830daea50")!, serviceUUID: BluetoothUUID("fe59")!,
            properties: properties)
    }
}
