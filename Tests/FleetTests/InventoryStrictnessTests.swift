import DFUFleet
import Foundation
import NordicDFU
import XCTest

/// Inventories refuse what they do not understand (docs/fleet.md, "Inventory"): a typo can never
/// change which package a device gets.
final class InventoryStrictnessTests: XCTestCase {
    /// Every key an inventory knows, each once.
    private let complete = """
        {"defaults": {"package": "app.zip", "adapter": "hci0", "force": false},
         "rules": [{"name": "Thermo-*", "hardware_revision": "pca10056", "version_below": "3.0.0",
                    "package": "thermo.zip"}],
         "devices": [{"device": "C0:DE:00:00:00:10", "package": "a.zip", "adapter": "hci1", "force": true},
                     {"device": "sim-1", "simulate": {"kind": "secure-app", "dfu_version": "0.8",
                      "firmware_version": "1.0.0", "app_version": 3, "hw_version": 52, "sd_id": "0xB6",
                      "public_key": "key.pem", "mtu": 247, "faults": ["disconnect-at=5000"]}}]}
        """

    private func error(_ json: String) -> String? {
        do {
            _ = try FleetInventory(json: Data(json.utf8))
            return nil
        } catch {
            return error.message
        }
    }

    func testTheCompleteInventoryIsRead() throws {
        XCTAssertNil(error(complete))
    }

    /// Each key misspelt in four ways (a letter dropped, two swapped, one added, another case):
    /// every variant is refused, naming the key.
    func testEveryMisspeltKeyIsRefused() throws {
        let keys = [
            "defaults", "package", "adapter", "force", "rules", "name", "hardware_revision", "version_below",
            "devices", "device", "simulate", "kind", "dfu_version", "firmware_version", "app_version",
            "hw_version", "sd_id",
            "public_key", "mtu", "faults",
        ]
        for key in keys {
            let quoted = "\"\(key)\""
            var index = complete.startIndex
            while let range = complete.range(of: quoted, range: index..<complete.endIndex) {
                index = range.upperBound
                let characters = Array(key)
                var typos = [
                    String(characters.dropLast()), key + "s", key.uppercased(),
                    String(characters[1]) + String(characters[0]) + String(characters.dropFirst(2)),
                ]
                typos.removeAll { $0 == key || keys.contains($0) }
                for typo in typos {
                    let json = complete.replacingCharacters(in: range, with: "\"\(typo)\"")
                    let message = error(json)
                    XCTAssertNotNil(message, "'\(typo)' for '\(key)' was taken")
                    guard let message, !keys.contains(typo) else { continue }
                    XCTAssertTrue(message.contains("'\(typo)'") || message.contains("missing"), message)
                }
            }
        }
    }

    func testTheIssuesMistakesNameTheEntryAndTheKey() {
        let cases: [(String, String)] = [
            (
                #"{"rules": [{"nmae": "Thermo-*", "package": "sd_bl_app.zip"}], "devices": [{"device": "A"}]}"#,
                "rule 1: unknown key 'nmae' (did you mean 'name'?)"
            ),
            (
                #"{"devices": [{"device": "Thermo-7", "pakage": "x.zip"}]}"#,
                "device 1 (Thermo-7): unknown key 'pakage' (did you mean 'package'?)"
            ),
            (
                #"{"defaults": {"fw_version": "1.0.0"}, "devices": [{"device": "A"}]}"#,
                "defaults: unknown key 'fw_version'"
            ),
            (
                #"{"devices": [{"device": "A", "force": "yes"}]}"#,
                "device 1 (A): force must be true or false, not a string"
            ),
            (#"{"devices": [{"device": 7}]}"#, "device 1: device must be a string, not a number"),
            (#"{"devices": {"device": "A"}}"#, "devices must be a list, not an object"),
            (#"{"devices": [{"device": ""}]}"#, "device 1 (): device is empty"),
            (#"{"devices": [{"device": "ZZ:00"}]}"#, "device 1: 'ZZ:00' is not a Bluetooth address"),
            (
                #"{"devices": [{"device": "C0-DE-00-00-00-10"}]}"#,
                "device 1: 'C0-DE-00-00-00-10' is an address written with dashes; write it with colons"
            ),
            (
                #"{"devices": [{"device": "Thermo"}, {"device": "C0:DE:00:00:00:+1"}]}"#,
                "device 2: 'C0:DE:00:00:00:+1' is not a Bluetooth address"
            ),
            (
                #"{"devices": [{"device": "C0:DE:00:00:00:10"}, {"device": "c0:de:00:00:00:10"}]}"#,
                "'c0:de:00:00:00:10' appears twice"
            ),
            (
                #"{"rules": [{"package": "all.zip"}], "devices": [{"device": "A"}]}"#,
                "rule 1 has no condition"
            ),
            (
                #"{"devices": [{"device": "s", "simulate": {"kind": "secure", "firmware": "1.0"}}]}"#,
                "device 1 (s) simulate: unknown key 'firmware'"
            ),
            (#"{"devices": [{"device": "A"},]}"#, "line 1, column 30: expected a value"),
            (#"{"devices": [{"device": "A", "device": "B"}]}"#, "\"device\" is named twice"),
            (
                "{\n  \"devices\": [\n    {\"device\": \"A\"\n  ]\n}",
                "line 4, column 3: expected ',' or the end"
            ),
        ]
        for (json, expected) in cases {
            let message = error(json) ?? "no error"
            XCTAssertTrue(message.contains(expected), "\(json)\n  gave: \(message)\n  expected: \(expected)")
        }
    }

    func testTheFormatIsToldByTheContent() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inventory-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func read(_ name: String, _ text: String) -> String {
            let url = folder.appendingPathComponent(name)
            try? Data(text.utf8).write(to: url)
            do {
                let inventory = try FleetInventory(contentsOf: url)
                return "devices \(inventory.devices.map(\.device))"
            } catch {
                return error.message
            }
        }
        XCTAssertTrue(read("list.json", #"[{"device": "A"}]"#).contains("a JSON list"))
        XCTAssertTrue(read("empty.csv", " \n\n").contains("the inventory is empty"))
        XCTAssertTrue(read("wide.csv", "device,package\nA,x.zip,extra\n").contains("row 2 has 3 fields"))
        XCTAssertTrue(read("twice.csv", "device,package,package\nA,x,y\n").contains("'package' twice"))
        XCTAssertEqual(read("fleet.txt", "\n  {\"devices\": [{\"device\": \"A\"}]}"), #"devices ["A"]"#)
        XCTAssertEqual(read("fleet.json", "device\nA\n"), #"devices ["A"]"#)
        do {
            _ = try FleetInventory(contentsOf: folder)
            XCTFail("a directory was read")
        } catch {
            XCTAssertTrue(error.message.contains("is a directory"), error.message)
        }
    }
}
