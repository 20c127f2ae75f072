import GATT
import XCTest

@testable import DFUFleet

/// The addresses a fleet's update is told belong to other devices: those next to the device's,
/// where the engine looks for it after a reboot, and never its own.
final class OtherDevicesTests: XCTestCase {
    private func address(_ last: UInt8) -> BluetoothAddress {
        BluetoothAddress(0xC0, 0xDE, 0, 0, 0, last)
    }

    func testTheDevicesNextToItFoundOrReservedAndNotItself() {
        let found = Set([0x10, 0x11, 0x0E, 0x20, 0x15].map(address))
        let others = FleetRun.otherDevices(near: address(0x10), found: found, reserved: [address(0x13)])
        XCTAssertEqual(others, Set([0x11, 0x0E, 0x13].map(address)))
    }

    /// Address + 1 and − 1 wrap within the last octet, as the engine's candidates do.
    func testTheNeighbourhoodWrapsAsTheEnginesCandidates() {
        let found = Set([0x00, 0xFF, 0xFE, 0x01].map(address))
        let others = FleetRun.otherDevices(near: address(0xFF), found: found, reserved: [])
        XCTAssertEqual(others, Set([0x00, 0xFE, 0x01].map(address)))
    }
}
