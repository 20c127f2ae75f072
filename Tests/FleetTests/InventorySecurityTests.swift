import DFUFleet
import Foundation
import GATT
import XCTest

/// The inventory's security keys: a level and a passkey source by reference, on entries, rules,
/// defaults and CSV columns; a passkey written into the inventory is refused as such, and the
/// message never repeats it.
final class InventorySecurityTests: XCTestCase {
    private func json(_ text: String) throws(FleetInventoryError) -> FleetInventory {
        try FleetInventory(json: Data(text.utf8))
    }

    func testEntriesRulesAndDefaultsNameTheirPasskeySources() throws {
        let inventory = try json(
            """
            {"defaults": {"package": "a.zip", "security": "encrypt"},
             "rules": [{"name": "Lock-*", "package": "l.zip", "security": "authenticated",
                        "passkey_command": "/usr/local/bin/lock-passkey"}],
             "devices": [{"device": "C0:DE:00:00:00:10", "security": "authenticated", "passkey_env": "DOOR_PASSKEY"},
                         {"device": "Lock-7"}, {"device": "Thermo-1", "passkey_file": "/etc/dfu/thermo.passkey"}]}
            """)
        XCTAssertEqual(
            inventory.devices[0].security,
            DeviceSecurity(level: .authenticated, passkey: .environment("DOOR_PASSKEY")))
        XCTAssertEqual(inventory.devices[1].security, DeviceSecurity())
        XCTAssertEqual(inventory.rules[0].security.passkey, .command("/usr/local/bin/lock-passkey"))
        XCTAssertEqual(inventory.defaults.security, DeviceSecurity(level: .encrypt))
        XCTAssertTrue(inventory.namesPasskeySources)

        // the entry first, then the first matching rule that says, then the defaults; each part alone
        let lock = inventory.security(
            for: inventory.devices[1],
            info: FleetDeviceInfo(address: BluetoothAddress(0xC0, 0xDE, 0, 0, 0, 0x20), name: "Lock-7"))
        XCTAssertEqual(
            lock, DeviceSecurity(level: .authenticated, passkey: .command("/usr/local/bin/lock-passkey")))
        let thermo = inventory.security(
            for: inventory.devices[2],
            info: FleetDeviceInfo(address: BluetoothAddress(0xC0, 0xDE, 0, 0, 0, 0x30), name: "Thermo-1"))
        XCTAssertEqual(thermo, DeviceSecurity(level: .encrypt, passkey: .file("/etc/dfu/thermo.passkey")))
        XCTAssertEqual(thermo.description, "encrypt, passkey from the passkey file /etc/dfu/thermo.passkey")
    }

    func testCSVColumnsNameTheSecurity() throws {
        let inventory = try FleetInventory(
            csv:
                "device,package,security,passkey_env\nC0:DE:00:00:00:10,a.zip,authenticated,DOOR_PASSKEY\nThermo-1,a.zip,,\n"
        )
        XCTAssertEqual(
            inventory.devices[0].security,
            DeviceSecurity(level: .authenticated, passkey: .environment("DOOR_PASSKEY")))
        XCTAssertTrue(inventory.devices[1].security.isEmpty)
    }

    func testAnInlinePasskeyIsRefusedWithoutRepeatingIt() {
        let cases = [
            #"{"devices": [{"device": "Door-1", "package": "a.zip", "passkey": "482193"}]}"#,
            #"{"devices": [{"device": "Door-1", "package": "a.zip", "pin": 482193}]}"#,
            #"{"defaults": {"passkey_value": "482193"}, "devices": [{"device": "Door-1"}]}"#,
            #"{"rules": [{"name": "D*", "package": "a.zip", "Passkey": "482193"}], "devices": [{"device": "Door-1"}]}"#,
        ]
        for text in cases {
            XCTAssertThrowsError(try json(text), text) { error in
                let error = error as! FleetInventoryError
                XCTAssertTrue(error.isInlineSecret, error.message)
                XCTAssertTrue(
                    error.message.contains("passkey_file, passkey_env or passkey_command"), error.message)
                XCTAssertFalse(error.message.contains("482193"), error.message)
            }
        }
        XCTAssertThrowsError(try FleetInventory(csv: "device,passkey\nDoor-1,482193\n")) { error in
            let error = error as! FleetInventoryError
            XCTAssertTrue(error.isInlineSecret, error.message)
            XCTAssertFalse(error.message.contains("482193"), error.message)
        }
    }

    func testAFileWithAnInlinePasskeyIsStillAnInlineSecret() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "inline-\(UUID().uuidString).json")
        try Data(#"{"devices": [{"device": "Door-1", "package": "a.zip", "passkey": "482193"}]}"#.utf8).write(
            to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        XCTAssertThrowsError(try FleetInventory(contentsOf: url)) { error in
            XCTAssertTrue((error as! FleetInventoryError).isInlineSecret)
        }
    }

    func testBadSecurityValuesAreNamed() {
        let cases = [
            (
                #"{"devices": [{"device": "D", "package": "a", "security": "high"}]}"#,
                "security 'high' is not open, encrypt or authenticated"
            ),
            (
                #"{"devices": [{"device": "D", "package": "a", "passkey_env": "A", "passkey_file": "/b"}]}"#,
                "exclude each other"
            ),
            (
                #"{"devices": [{"device": "D", "package": "a", "security": "open", "passkey_env": "A"}]}"#,
                "security 'open' takes no passkey source"
            ),
            (#"{"devices": [{"device": "D", "package": "a", "passkey_env": ""}]}"#, "passkey_env is empty"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try json(text), text) { error in
                let error = error as! FleetInventoryError
                XCTAssertFalse(error.isInlineSecret, error.message)
                XCTAssertTrue(error.message.contains(expected), error.message)
            }
        }
    }
}
