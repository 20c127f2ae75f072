import GATT
import XCTest

@testable import DFUGateway

/// What one look of a gateway saw (`Sighting`): a device named with an adapter counts as seen
/// only when that adapter heard it; a simulated device, on an adapter of its own, whatever the
/// name.
final class SightingTests: XCTestCase {
    func testADeviceIsSeenOnTheAdaptersThatHeardIt() {
        let heard = DeviceIdentifier("C0:DE:00:00:00:10")
        let simulated = DeviceIdentifier("C0:DE:00:00:00:20")
        let sighting = Sighting(simulated: [simulated], heardOn: [heard: ["hci0"], simulated: ["hci0"]])
        XCTAssertTrue(sighting.contains(heard, on: nil))
        XCTAssertTrue(sighting.contains(heard, on: "hci0"))
        XCTAssertFalse(sighting.contains(heard, on: "hci1"))
        XCTAssertTrue(sighting.contains(simulated, on: "hci1"))
        XCTAssertEqual(sighting.heard, [heard])
        XCTAssertFalse(sighting.contains(DeviceIdentifier("C0:DE:00:00:00:30"), on: nil))
    }
}
