import GATT
import XCTest

@testable import BlueZ

/// The management interface's events as the kernel lays them out (BlueZ doc/mgmt-api.txt):
/// the Device Disconnected event that tells a lost bond from a dropped link.
final class ManagementEventTests: XCTestCase {
    private let address = BluetoothAddress("00:AA:01:01:00:02")!

    /// Device Disconnected (0x000C) on controller 1: address (least significant octet first),
    /// LE random (2), `reason`.
    private func disconnected(reason: UInt8, address wire: [UInt8]? = nil) -> [UInt8] {
        [0x0C, 0x00, 0x01, 0x00, 0x08, 0x00] + (wire ?? address.wireOrder) + [0x02, reason]
    }

    func testADisconnectionForAuthenticationFailureIsReadWithItsControllerAndPeer() throws {
        let event = try XCTUnwrap(ManagementEvent(disconnected(reason: 4)))
        XCTAssertEqual(event.code, 0x000C)
        XCTAssertEqual(event.controller, 1)
        XCTAssertEqual(event.disconnectReason(of: address), .authenticationFailure)
    }

    func testOtherReasonsPeersAndEventsAreToldApart() throws {
        XCTAssertEqual(ManagementEvent(disconnected(reason: 1))?.disconnectReason(of: address), .timeout)
        XCTAssertEqual(ManagementEvent(disconnected(reason: 3))?.disconnectReason(of: address), .remote)
        let other = ManagementEvent(disconnected(reason: 4, address: [0x03, 0x00, 0x01, 0x01, 0xAA, 0x00]))
        XCTAssertNil(other?.disconnectReason(of: address))
        // Device Connected (0x000B) carries an address too, but no reason
        let connected = ManagementEvent(
            code: 0x000B, controller: 1, parameters: address.wireOrder + [2, 0, 0, 0, 0, 0, 0])
        XCTAssertNil(connected.disconnectReason(of: address))
    }

    func testAnEventShorterThanItsHeaderSaysIsRefused() {
        XCTAssertNil(ManagementEvent(Array(disconnected(reason: 4).dropLast())))
        XCTAssertNil(ManagementEvent([0x0C, 0x00, 0x01]))
    }
}
