import DFUFleet
import Foundation
import GATT
import XCTest

/// `FleetInventoryIndex`: a device's entry read alone gives what reading the whole inventory
/// gives for it, and the other entries are not read.
final class InventoryIndexTests: XCTestCase {
    private let folder = URL(fileURLWithPath: "/srv/rollout")

    func testAJSONEntryReadAloneEqualsTheWholeInventorysEntry() throws {
        let json = """
            {"defaults": {"package": "app.zip", "adapter": "hci0", "security": "encrypt"},
             "rules": [{"name": "Thermo-*", "package": "thermo.zip"}],
             "devices": [
               {"device": "c0:de:00:00:00:10"},
               {"device": "Thermo-7", "package": "/abs/thermo_v3.zip", "force": true, "adapter": "hci1"}]}
            """
        let whole = try FleetInventory(data: Data(json.utf8), folder: folder)
        let index = try FleetInventoryIndex(data: Data(json.utf8), folder: folder)
        for (number, name) in ["C0:DE:00:00:00:10", "Thermo-7"].enumerated() {
            let alone = try XCTUnwrap(try index.inventory(of: DeviceIdentifier(name)))
            XCTAssertEqual(alone.devices, [whole.devices[number]])
            XCTAssertEqual(alone.defaults, whole.defaults)
            XCTAssertEqual(alone.rules, whole.rules)
        }
        XCTAssertTrue(index.lists(DeviceIdentifier("C0:DE:00:00:00:10")))
        XCTAssertFalse(index.lists(DeviceIdentifier("C0:DE:00:00:00:11")))
        XCTAssertNil(
            try index.inventory(of: DeviceIdentifier("thermo-7")), "a name is not an address: its case counts"
        )
    }

    /// An entry's file (what a rollout stores for its device) is, as JSON, the inventory's other
    /// members and that entry alone: the entry copied as written, whatever its strings, nesting
    /// and spacing hold, and wherever "devices" stands (its name written with an escape too).
    func testAnEntrysFileIsTheOtherMembersAndThatEntryAlone() throws {
        let json = #"""
            { "rules" : [ {"name": "a]}\"{[", "package": "x.zip"} ],
              "dev\u0069ces": [ {"device": "C0:DE:00:00:00:10",
                  "simulate": {"kind": "secure", "sim_mtu": 247, "faults": [1.5e2, [-2, {"x": null}]], "on": true}} ,
                {"device": "Thermo \"7\" ]}", "force": false},{"device":"C0:DE:00:00:00:12"}
              ],
              "defaults": {"package": "app.zip"} }
            """#
        let index = try FleetInventoryIndex(data: Data(json.utf8), folder: folder)
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let devices = try XCTUnwrap(root["devices"] as? [Any])
        for (number, name) in ["C0:DE:00:00:00:10", #"Thermo "7" ]}"#, "C0:DE:00:00:00:12"].enumerated() {
            let file = try XCTUnwrap(index.file(of: DeviceIdentifier(name)), name)
            let alone = try JSONSerialization.jsonObject(with: file) as? NSDictionary
            var expected = root
            expected["devices"] = [devices[number]]
            XCTAssertEqual(alone, expected as NSDictionary, String(decoding: file, as: UTF8.self))
        }
        let bare = try FleetInventoryIndex(
            data: Data(#"{"devices":[{"device":"C0:DE:00:00:00:10"}]}"#.utf8), folder: folder)
        XCTAssertEqual(
            bare.file(of: DeviceIdentifier("C0:DE:00:00:00:10")),
            Data(#"{"devices":[{"device":"C0:DE:00:00:00:10"}]}"#.utf8))
    }

    /// Entries are named by their `device` string as a parser reads it (escapes, its last
    /// occurrence), an entry without one is left unnamed, and the members after the list stay
    /// in each entry's file.
    func testEntriesAreNamedAsAParserReadsThem() throws {
        let json = #"""
            {"devices": [{}, {"device": "Th\u00e9rmo", "x": {"device": "inner"}},
                         {"device": "old", "device": "C0:DE:00:00:00:10"}, "text", {"name": "no device"}],
             "defaults": {"package": "app.zip"}}
            """#
        let index = try FleetInventoryIndex(data: Data(json.utf8), folder: folder)
        XCTAssertTrue(index.lists(DeviceIdentifier("Th\u{e9}rmo")))
        XCTAssertTrue(index.lists(DeviceIdentifier("C0:DE:00:00:00:10")))
        for unlisted in ["inner", "old", "text", "no device"] {
            XCTAssertFalse(index.lists(DeviceIdentifier(unlisted)), unlisted)
        }
        let file = try XCTUnwrap(index.file(of: DeviceIdentifier("Th\u{e9}rmo")))
        let alone = try XCTUnwrap(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        XCTAssertEqual(alone["defaults"] as? [String: String], ["package": "app.zip"])
        XCTAssertEqual((alone["devices"] as? [Any])?.count, 1)
    }

    /// Bytes that are not an inventory (the index splits, it does not check) are refused or
    /// split into entries that fail when read: never a crash.
    func testBrokenJSONIsNeverACrash() throws {
        let whole =
            #"{"defaults": {"package": "a\"b.zip"}, "#
            + #""devices": [{"device": "C0:DE:00:00:00:10"}, {"de"#
        for end in whole.indices {
            let bytes = Data(whole[..<end].utf8)
            guard let index = try? FleetInventoryIndex(data: bytes, folder: folder) else { continue }
            _ = try? index.inventory(of: DeviceIdentifier("C0:DE:00:00:00:10"))
        }
        XCTAssertThrowsError(try FleetInventoryIndex(data: Data(#"{"devices": 3}"#.utf8), folder: folder))
    }

    func testACSVEntryReadAloneEqualsTheWholeInventorysEntry() throws {
        let csv =
            "device,package,force\r\nC0:DE:00:00:00:10,,\n\"Thermo, kitchen\",\"a \"\"b\"\".zip\",true\n\n"
        let whole = try FleetInventory(data: Data(csv.utf8), folder: folder)
        let index = try FleetInventoryIndex(data: Data(csv.utf8), folder: folder)
        XCTAssertEqual(
            try index.inventory(of: DeviceIdentifier("c0:de:00:00:00:10"))?.devices, [whole.devices[0]])
        XCTAssertEqual(
            try index.inventory(of: DeviceIdentifier("Thermo, kitchen"))?.devices, [whole.devices[1]])
    }

    /// A spreadsheet's "CSV UTF-8" export (and some editors' JSON) starts with a byte order
    /// mark: read as the same inventory without it, whole and one entry at a time (a rollout's).
    func testAByteOrderMarkIsNotPartOfTheInventory() throws {
        let bom = Data([0xEF, 0xBB, 0xBF])
        for text in [
            "device,package\r\nC0:DE:00:00:00:10,app.zip\r\n",
            #"{"devices": [{"device": "C0:DE:00:00:00:10", "package": "app.zip"}]}"#,
        ] {
            let plain = try FleetInventory(data: Data(text.utf8), folder: folder)
            let marked = try FleetInventory(data: bom + Data(text.utf8), folder: folder)
            XCTAssertEqual(marked.devices, plain.devices, text)
            let index = try FleetInventoryIndex(data: bom + Data(text.utf8), folder: folder)
            XCTAssertEqual(
                try index.inventory(of: DeviceIdentifier("C0:DE:00:00:00:10"))?.devices, plain.devices)
        }
    }

    /// Only the entry asked for is checked: a broken entry of another device does not stop one
    /// (the store's inventory was checked whole when the rollout was made).
    func testOnlyTheEntryAskedForIsRead() throws {
        let json = """
            {"defaults": {"package": "app.zip"},
             "devices": [{"device": "C0:DE:00:00:00:10"}, {"device": "C0:DE:00:00:00:11", "colour": "red"}]}
            """
        let index = try FleetInventoryIndex(data: Data(json.utf8), folder: folder)
        XCTAssertEqual(
            try index.inventory(of: DeviceIdentifier("C0:DE:00:00:00:10"))?.devices.map(\.device),
            ["C0:DE:00:00:00:10"])
        XCTAssertThrowsError(try index.inventory(of: DeviceIdentifier("C0:DE:00:00:00:11"))) { error in
            XCTAssertTrue("\(error)".contains("colour"), "\(error)")
        }
    }
}
