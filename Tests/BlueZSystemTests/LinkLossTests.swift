import BlueZ
import GATT
import XCTest

/// When the peripheral drops the link, everything waiting on it ends with `disconnected`
/// promptly instead of hanging.
final class LinkLossTests: SystemTestCase {
    func testADroppedLinkEndsSocketNotificationsAndFailsWrites() async throws {
        try await checkLinkLoss(acquire: true)
    }

    func testADroppedLinkEndsSignalNotificationsAndFailsWrites() async throws {
        try await checkLinkLoss(acquire: false)
    }

    func testDisconnectingFromTheCentralEndsTheLink() async throws {
        let link = try await connect()
        let packet = try await characteristic(TestPeripheral.packet, of: link)
        await link.disconnect()
        try await link.waitForDisconnection(timeout: .seconds(1))
        do {
            _ = try await link.services()
            XCTFail("the services of a closed link were listed")
        } catch GATTError.disconnected {}
        do {
            try await packet.write([1], timeout: .seconds(5))
            XCTFail("a write on a closed link succeeded")
        } catch GATTError.disconnected {}
    }

    private func checkLinkLoss(acquire: Bool) async throws {
        var options = BlueZCentral.Options()
        options.acquireWrite = acquire
        options.acquireNotify = acquire
        let link = try await connect(options)
        let controlPoint = try await characteristic(TestPeripheral.controlPoint, of: link)
        let packet = try await characteristic(TestPeripheral.packet, of: link)
        let notifications = StreamRecorder(try await controlPoint.subscribe(timeout: .seconds(10)))
        defer { notifications.stop() }
        try await peripheral.waitForSubscription(to: TestPeripheral.controlPoint)
        try await packet.writeWithoutResponse([0xAA])

        let centralAddress = try XCTUnwrap(central?.adapterAddress)
        let dropped = ContinuousClock.now
        try await SystemTestEnvironment.dropLink(from: 1, to: centralAddress)

        try await link.waitForDisconnection(timeout: .seconds(10))
        let ending = try await notifications.end(within: .seconds(10))
        guard case .failure(let error) = ending else {
            return XCTFail("the notification stream did not end with an error: \(String(describing: ending))")
        }
        guard case GATTError.disconnected(let device, _) = error else {
            return XCTFail("expected GATTError.disconnected, got \(error)")
        }
        XCTAssertEqual(device, link.address.description)
        print(
            "link loss noticed \(ContinuousClock.now - dropped) after btmgmt disconnect (acquire: \(acquire))"
        )

        for attempt in [
            { try await packet.writeWithoutResponse([0xBB]) },
            { try await controlPoint.write([0x01], timeout: .seconds(5)) },
            { _ = try await controlPoint.read(timeout: .seconds(5)) },
        ] as [@Sendable () async throws -> Void] {
            do {
                try await attempt()
                XCTFail("an operation on a dropped link succeeded")
            } catch GATTError.disconnected {}
        }
    }
}
