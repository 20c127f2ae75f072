import GATT
import XCTest

final class AddressAndUUIDTests: XCTestCase {
    func testShortUUIDExpandsOverBluetoothBase() {
        XCTAssertEqual(BluetoothUUID("FE59")?.uuidString, "0000fe59-0000-1000-8000-00805f9b34fb")
        XCTAssertEqual(BluetoothUUID(short: 0x2A26), BluetoothUUID("00002A26-0000-1000-8000-00805F9B34FB"))
        XCTAssertNil(BluetoothUUID("8ec900011f3154f609fb8838830daea50"))
        XCTAssertEqual(
            BluetoothUUID("8EC90001F3154F609FB8838830DAEA50")?.uuidString,
            "8ec90001-f315-4f60-9fb8-838830daea50")
        XCTAssertEqual(BluetoothUUID("FE59")?.shortValue, 0xFE59)
        XCTAssertNil(BluetoothUUID("8EC90001-F315-4F60-9FB8-838830DAEA50")?.shortValue)
        XCTAssertNil(BluetoothUUID("FG59"))
        XCTAssertNil(BluetoothUUID("FE5"))
    }

    func testAddressPlusOneWrapsWithoutCarry() {
        XCTAssertEqual(BluetoothAddress("AA:BB:CC:DD:EE:45")?.incremented.description, "AA:BB:CC:DD:EE:46")
        XCTAssertEqual(BluetoothAddress("aa:bb:cc:dd:ee:ff")?.incremented.description, "AA:BB:CC:DD:EE:00")
        XCTAssertNil(BluetoothAddress("AA:BB:CC:DD:EE"))
        XCTAssertNil(BluetoothAddress("AA:BB:CC:DD:EE:GG"))
    }

    func testDeviceIdentifierTellsAddressFromName() {
        XCTAssertEqual(
            DeviceIdentifier("c0:de:00:00:00:10"), .address(BluetoothAddress(0xC0, 0xDE, 0, 0, 0, 0x10)))
        XCTAssertEqual(DeviceIdentifier("c0:de:00:00:00:10").description, "C0:DE:00:00:00:10")
        XCTAssertEqual(DeviceIdentifier("Thermo-7"), .name("Thermo-7"))
    }

    /// Each group is two hex digits: a sign is not one (`UInt8("+A", radix: 16)` reads 10).
    func testAddressGroupsAreHexDigitsOnly() {
        XCTAssertNil(BluetoothAddress("+A:BB:CC:DD:EE:FF"))
        XCTAssertNil(BluetoothAddress("AA:BB:CC:DD:EE:-1"))
        XCTAssertEqual(BluetoothAddress("0a:Bb:cC:dd:ee:ff")?.description, "0A:BB:CC:DD:EE:FF")
    }

    /// Exactly six groups of two, a colon between each: nothing more, nothing less, nothing else.
    func testAddressTextIsSixGroupsSeparatedByColons() {
        for text in [
            "", "AA-BB-CC-DD-EE-FF", "AAB:BC:CD:DE:EF:F", "AA:BB:CC:DD:EE:FF:", " AA:BB:CC:DD:EE:F",
            "AA:BB:CC:DD:EE:F", "AA:BB:CC:DD:EEFF0", "\u{FF21}A:BB:CC:DD:EE:FF", "AA:BB:CC:DD:EE:\u{0660}1",
        ] {
            XCTAssertNil(BluetoothAddress(text), text)
        }
        for octet in UInt8.min...UInt8.max {
            let address = BluetoothAddress(octet, 0, 0xFF, octet, 0x10, octet)
            XCTAssertEqual(BluetoothAddress(address.description), address, address.description)
            XCTAssertEqual(BluetoothAddress(address.description.lowercased()), address)
        }
    }

    func testParsingSaysWhyTextNamesNoDevice() throws {
        XCTAssertEqual(try DeviceIdentifier.parse("aa:bb:cc:dd:ee:ff").description, "AA:BB:CC:DD:EE:FF")
        XCTAssertEqual(try DeviceIdentifier.parse("Thermo-7"), .name("Thermo-7"))
        XCTAssertThrowsError(try DeviceIdentifier.parse("AA:BB:CC:DD:EE:F")) { error in
            XCTAssertTrue("\(error)".contains("'AA:BB:CC:DD:EE:F' is not a Bluetooth address"), "\(error)")
        }
        XCTAssertThrowsError(try DeviceIdentifier.parse(" "))
    }

    /// An address copied from Windows (dashes) or with a space around it would be taken as a
    /// name no device advertises: refused, saying how to write it.
    func testAnAddressWrittenAsBlueZNeverWritesOneIsRefused() {
        XCTAssertThrowsError(try DeviceIdentifier.parse("c0-de-00-00-00-10")) { error in
            XCTAssertEqual(
                "\(error)",
                "'c0-de-00-00-00-10' is an address written with dashes; write it with colons (C0:DE:00:00:00:10)"
            )
        }
        XCTAssertThrowsError(try DeviceIdentifier.parse("C0:DE:00:00:00:10 ")) { error in
            XCTAssertEqual(
                "\(error)",
                "'C0:DE:00:00:00:10 ' has spaces around an address; write it without them (C0:DE:00:00:00:10)"
            )
        }
        XCTAssertEqual(try DeviceIdentifier.parse("Thermo-7-kitchen"), .name("Thermo-7-kitchen"))
        XCTAssertEqual(try DeviceIdentifier.parse("C0DE00000010"), .name("C0DE00000010"))
    }

    func testPropertiesRoundTripBlueZFlagNames() {
        let properties = CharacteristicProperties(flagNames: ["write", "notify", "extended-properties"])
        XCTAssertEqual(properties, [.write, .notify])
        XCTAssertEqual(properties.flagNames, ["write", "notify"])
    }
}
