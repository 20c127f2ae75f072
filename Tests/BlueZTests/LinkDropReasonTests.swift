import DBus
import XCTest

@testable import BlueZ

/// What a connection failure says when the link drops before the device's services are resolved:
/// the bond bluetoothd holds is the one hint that the device may have lost its keys.
final class LinkDropReasonTests: XCTestCase {
    private func device(paired: Bool?) -> DeviceProperties {
        var values: [String: DBusValue] = [
            "Address": .string("00:AA:01:01:00:02"), "Connected": .boolean(false),
        ]
        if let paired { values["Paired"] = .boolean(paired) }
        return DeviceProperties(path: "/org/bluez/hci0/dev_00_AA_01_01_00_02", values: values)
    }

    func testABondedDeviceThatDropsTheLinkIsSaidToHaveMaybeLostItsKeys() {
        let reason = device(paired: true).droppedWhileResolvingServices
        XCTAssertTrue(reason.hasPrefix("the link dropped while resolving services; "), reason)
        XCTAssertTrue(reason.contains("holds a bond"), reason)
        XCTAssertTrue(reason.contains("pair again"), reason)
    }

    func testAnUnbondedDeviceThatDropsTheLinkIsNotSaidToHaveLostABond() {
        for paired in [false, nil] {
            XCTAssertEqual(
                device(paired: paired).droppedWhileResolvingServices,
                "the link dropped while resolving services")
        }
    }
}
